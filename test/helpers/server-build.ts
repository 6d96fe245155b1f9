import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { build } from 'esbuild';

const ROOT = path.resolve(import.meta.dirname, '../..');
const CACHE = path.join(ROOT, 'node_modules', '.cache', 'server-build');
/** A lock whose holder has not yet written its pid is taken for alive this long. */
const LOCK_GRACE_MS = 10_000;
const POLL_MS = 200;

/** Where the bundles go inside a build: one level down, so that `../console` from them is the console. */
const BUNDLED = 'bundled';

let built: Promise<string> | undefined;

/**
 * The server as the suites' child processes run it: src/main.ts, src/worker.ts and
 * src/cli/admin.ts each bundled into one file (`<build>/bundled/main.js`, `worker.js` next to it,
 * `cli/admin.js` below it), so that a process loads one file and not some 900 modules: a server on
 * SQLite spent about 1.4 s of CPU from spawn to its banner and exit when it loaded tsc's files, 0.8 s
 * from its bundle, and an operator command 0.6 s against 0.3 s (CONTRIBUTING.md, "How long the
 * suite takes"). `npm start` still runs tsc's output: `buildCompiledServer` gives it to the suites
 * of `npm start` itself and of `npm run bench`.
 */
export async function buildServer(): Promise<string> {
  return path.join(path.dirname(await buildCompiledServer()), BUNDLED, 'main.js');
}

/**
 * Compiles src/ (tsc, as `npm run build` does), bundles it (`buildServer`) and builds the console
 * once per content (the folder is named by a hash of every source file of both), so that the suites
 * of one run, the runs beside it, and later runs on unchanged sources share one build. The console
 * lands in `console/` next to the compiled main.js, where the server looks for it, as `npm run
 * build` puts it in dist/. One process builds while the others wait on a lock folder: on two cores,
 * four workers each compiling the same sources would cost four builds' time. Resolves with tsc's
 * main.js.
 */
export function buildCompiledServer(): Promise<string> {
  built ??= (async () => {
    const target = path.join(CACHE, sourceHash());
    const main = path.join(target, 'main.js');
    const lock = `${target}.lock`;
    mkdirSync(CACHE, { recursive: true });
    while (!existsSync(main)) {
      if (takeLock(lock)) {
        try {
          if (!existsSync(main)) await compileInto(target);
        } finally {
          rmSync(lock, { recursive: true, force: true });
        }
      } else if (holderDied(lock)) {
        rmSync(lock, { recursive: true, force: true });
      } else {
        await sleep(POLL_MS);
      }
    }
    for (const file of ['console/index.html', `${BUNDLED}/main.js`]) {
      if (!existsSync(path.join(target, file))) throw new Error(`the build did not produce ${file} in ${target}`);
    }
    return main;
  })();
  return built;
}

function takeLock(lock: string): boolean {
  try {
    mkdirSync(lock);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  writeFileSync(path.join(lock, 'pid'), String(process.pid));
  return true;
}

/** True when the lock's holder is gone (a run killed mid-build), so that the lock may be taken over. */
function holderDied(lock: string): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(path.join(lock, 'pid'), 'utf8'));
  } catch {
    try {
      return Date.now() - statSync(lock).mtimeMs > LOCK_GRACE_MS;
    } catch {
      return false; // released meanwhile: the next turn of the loop sees the build or takes the lock
    }
  }
  try {
    process.kill(pid, 0);
    return false;
  } catch {
    return true;
  }
}

/** Builds into a scratch folder and renames it into place, so that a reader never sees half a build. */
async function compileInto(target: string): Promise<void> {
  const scratch = `${target}.${process.pid}.${randomBytes(4).toString('hex')}`;
  const run = (command: string, args: string[]) => promisify(execFile)(command, args, { cwd: ROOT });
  try {
    await Promise.all([
      // Emit only, as vitest runs the sources in process: the types are `npm run typecheck`'s to check.
      run('npx', ['tsc', '-p', 'tsconfig.json', '--noCheck', '--outDir', scratch]),
      bundleInto(path.join(scratch, BUNDLED)),
      run('npx', [
        'vite',
        'build',
        '--config',
        'console/vite.config.ts',
        '--logLevel',
        'warn',
        '--outDir',
        path.join(scratch, 'console'),
      ]),
    ]);
  } catch (error) {
    rmSync(scratch, { recursive: true, force: true });
    const { stdout = '', stderr = '', message = '' } = error as { stdout?: string; stderr?: string; message?: string };
    throw new Error(`the build failed:\n${stdout || message}\n${stderr}`);
  }
  try {
    renameSync(scratch, target);
  } catch {
    // A run that took the lock over from one it found dead finished first: its build is the same.
    rmSync(scratch, { recursive: true, force: true });
  }
  if (!existsSync(path.join(target, 'main.js'))) throw new Error(`the build did not produce ${target}/main.js`);
}

/**
 * Packages left out of the bundles, loaded from node_modules as `npm start` loads them: those that
 * find files of their own next to their modules (better-sqlite3's native addon and ssh2's optional
 * ones, pdfkit's font metrics, the Swagger UI's and @fastify/static's files, pino's and
 * thread-stream's worker threads, ioredis' and @fastify/swagger's package.json), which a bundle would
 * move away from them.
 */
const UNBUNDLED = [
  'better-sqlite3',
  '@fastify/static',
  '@fastify/swagger',
  '@fastify/swagger-ui',
  'ioredis',
  'pdfkit',
  'pino',
  'pino-pretty',
  'ssh2',
  'thread-stream',
];

async function bundleInto(outdir: string): Promise<void> {
  // esbuild rejects with its errors.
  await build({
    entryPoints: { main: 'src/main.ts', worker: 'src/worker.ts', 'cli/admin': 'src/cli/admin.ts' },
    absWorkingDir: ROOT,
    outdir,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: UNBUNDLED,
    sourcemap: true,
    // The bundled CommonJS packages call require(): an ES module has none of its own.
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    },
    logLevel: 'silent',
  });
  // A package bundled that finds its own files through __dirname would look for them in the
  // bundle's folder (and an ES module has no __dirname): it belongs in UNBUNDLED.
  for (const file of ['main.js', 'worker.js', 'cli/admin.js']) {
    const text = readFileSync(path.join(outdir, file), 'utf8');
    const at = text.search(/\b__dirname\b/);
    if (at === -1) continue;
    const module = text.slice(
      text.lastIndexOf('\n// node_modules/', at) + 4,
      text.indexOf('\n', text.lastIndexOf('\n// node_modules/', at) + 1),
    );
    throw new Error(`the bundle ${file} uses __dirname (in ${module}): leave its package out of the bundles (UNBUNDLED)`);
  }
}

function sourceHash(): string {
  const hash = createHash('sha256');
  const sources = [...listFiles(path.join(ROOT, 'src')), ...listFiles(path.join(ROOT, 'console'))];
  // This file too (how it builds is part of what it builds), and the lock file: the bundles hold packages.
  const inputs = ['tsconfig.json', 'package-lock.json', 'test/helpers/server-build.ts'].map((file) => path.join(ROOT, file));
  for (const file of [...sources, ...inputs]) {
    hash.update(path.relative(ROOT, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex').slice(0, 16);
}

function listFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((name) => name !== 'node_modules')
    .sort()
    .flatMap((name) => {
      const full = path.join(dir, name);
      return statSync(full).isDirectory() ? listFiles(full) : [full];
    });
}
