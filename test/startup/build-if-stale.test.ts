import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';

/**
 * `npm run admin` and `npm run worker` compile only when a source is newer than dist/
 * (scripts/build-if-stale.js, their pre-script), run here in a package folder of the test's own.
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
  const sources = new Date('2026-01-01T00:00:00Z');
  for (const entry of ['src/main.ts', 'src', 'tsconfig.json']) utimesSync(path.join(dir, entry), sources, sources);
  if (built !== 'never') {
    mkdirSync(path.join(dir, 'dist'));
    writeFileSync(path.join(dir, 'dist', 'main.js'), '// the last build\n');
    const at = new Date(sources.getTime() + (built === 'after the sources' ? 1000 : -1000));
    utimesSync(path.join(dir, 'dist', 'main.js'), at, at);
  }
  return dir;
}

async function runIn(dir: string): Promise<{ stderr: string; output: string }> {
  const { stderr } = await promisify(execFile)(process.execPath, [SCRIPT], { cwd: dir });
  return { stderr, output: existsSync(path.join(dir, 'dist', 'main.js')) ? 'dist/main.js' : '' };
}

describe('build only when stale (npm run admin, npm run worker)', { timeout: 60_000 }, () => {
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
});
