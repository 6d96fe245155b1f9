import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';

/**
 * `npm start`, `npm run admin` and `npm run worker` build only when a source is newer than dist/
 * (scripts/build-if-stale.js, their pre-script; `npm start` also the console, with `--console`),
 * run here in a package folder of the test's own.
 */
const SCRIPT = path.resolve(import.meta.dirname, '../../scripts/build-if-stale.js');
const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** A package folder with src/main.ts and a tsconfig.json; dist/main.js when `built` (1 s after the sources, or before them). */
function packageFolder(built: 'after the sources' | 'before the sources' | 'never'): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'build-if-stale-'));
  folders.push(dir);
  mkdirSync(path.join(dir, 'src'));
  writeFileSync(path.join(dir, 'src', 'main.ts'), 'export const answer: number = 42;\n');
  writeFileSync(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { outDir: 'dist', rootDir: 'src', module: 'NodeNext', types: [] }, include: ['src'] }),
  );
  const sources = SOURCES_TIME;
  for (const entry of ['src/main.ts', 'src', 'tsconfig.json']) utimesSync(path.join(dir, entry), sources, sources);
  if (built !== 'never') {
    mkdirSync(path.join(dir, 'dist'));
    writeFileSync(path.join(dir, 'dist', 'main.js'), '// the last build\n');
    const at = new Date(sources.getTime() + (built === 'after the sources' ? 1000 : -1000));
    utimesSync(path.join(dir, 'dist', 'main.js'), at, at);
  }
  return dir;
}

const SOURCES_TIME = new Date('2026-01-01T00:00:00Z');

/** Adds a console (console/index.html and its vite config) to a package folder; dist/console/index.html when `built`. */
function withConsole(dir: string, built: 'after the sources' | 'before the sources'): string {
  mkdirSync(path.join(dir, 'console'));
  writeFileSync(path.join(dir, 'console', 'index.html'), '<!doctype html><title>the console</title>\n');
  writeFileSync(
    path.join(dir, 'console', 'vite.config.ts'),
    "export default { root: import.meta.dirname, logLevel: 'warn', build: { outDir: '../dist/console', emptyOutDir: true } };\n",
  );
  for (const entry of ['console/index.html', 'console/vite.config.ts', 'console']) {
    utimesSync(path.join(dir, entry), SOURCES_TIME, SOURCES_TIME);
  }
  mkdirSync(path.join(dir, 'dist', 'console'), { recursive: true });
  writeFileSync(path.join(dir, 'dist', 'console', 'index.html'), '<!-- the last build -->\n');
  const at = new Date(SOURCES_TIME.getTime() + (built === 'after the sources' ? 1000 : -1000));
  utimesSync(path.join(dir, 'dist', 'console', 'index.html'), at, at);
  return dir;
}

async function runIn(dir: string, args: string[] = []): Promise<{ stderr: string; output: string }> {
  const { stderr } = await promisify(execFile)(process.execPath, [SCRIPT, ...args], { cwd: dir });
  return { stderr, output: existsSync(path.join(dir, 'dist', 'main.js')) ? 'dist/main.js' : '' };
}

describe('build only when stale (npm start, npm run admin, npm run worker)', { timeout: 60_000 }, () => {
  it('when npm start, admin or worker runs, then its pre-script builds only what is stale (npm start: the console too)', () => {
    const { scripts } = JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../../package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(scripts.prestart).toBe('node scripts/build-if-stale.js --console');
    expect(scripts.preadmin).toBe('node scripts/build-if-stale.js');
    expect(scripts.preworker).toBe('node scripts/build-if-stale.js');
  });

  it('when dist/ is newer than every source, then nothing is compiled', async () => {
    const dir = packageFolder('after the sources');
    const { stderr } = await runIn(dir);
    expect(stderr).toBe('');
    expect(readFileSync(path.join(dir, 'dist', 'main.js'), 'utf8')).toBe('// the last build\n');
  });

  it('when a source is newer than dist/, then src/ is compiled into dist/', async () => {
    const dir = packageFolder('before the sources');
    const { stderr } = await runIn(dir);
    expect(stderr).toContain('Compiling src/ into dist/');
    expect(await import(path.join(dir, 'dist', 'main.js'))).toEqual(expect.objectContaining({ answer: 42 }));
  });

  it('when there is no build yet, then src/ is compiled into dist/', async () => {
    const dir = packageFolder('never');
    const { stderr, output } = await runIn(dir);
    expect(stderr).toContain('Compiling src/ into dist/');
    expect(output).toBe('dist/main.js');
  });

  it('when the server and the console are newer than their sources and --console is given, then nothing is built', async () => {
    const dir = withConsole(packageFolder('after the sources'), 'after the sources');
    const { stderr } = await runIn(dir, ['--console']);
    expect(stderr).toBe('');
    expect(readFileSync(path.join(dir, 'dist', 'console', 'index.html'), 'utf8')).toBe('<!-- the last build -->\n');
  });

  it('when only the console is older than its sources and --console is given, then only the console is built', async () => {
    const dir = withConsole(packageFolder('after the sources'), 'before the sources');
    const { stderr } = await runIn(dir, ['--console']);
    expect(stderr).toContain('Building the console into dist/console/');
    expect(stderr).not.toContain('Compiling src/');
    expect(readFileSync(path.join(dir, 'dist', 'console', 'index.html'), 'utf8')).toContain('<title>the console</title>');
    expect(readFileSync(path.join(dir, 'dist', 'main.js'), 'utf8')).toBe('// the last build\n');
  });

  it('when the console is older than its sources but --console is not given (admin, worker), then it is not built', async () => {
    const dir = withConsole(packageFolder('after the sources'), 'before the sources');
    const { stderr } = await runIn(dir);
    expect(stderr).toBe('');
    expect(readFileSync(path.join(dir, 'dist', 'console', 'index.html'), 'utf8')).toBe('<!-- the last build -->\n');
  });
});
