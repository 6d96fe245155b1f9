import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';

const ROOT = path.resolve(import.meta.dirname, '../..');
const CACHE = path.join(ROOT, 'node_modules', '.cache', 'server-build');
/** A lock whose holder has not yet written its pid is taken for alive this long. */
const LOCK_GRACE_MS = 10_000;
const POLL_MS = 200;

let built: Promise<string> | undefined;

/**
 * Compiles src/ and builds the console once per content (the folder is named by a hash of every
 * source file of both), so that the suites of one run, the runs beside it (.ci/run runs the fault
 * and browser suites at once), and later runs on unchanged sources share one build. The console
 * lands in `console/` next to the compiled main.js, where the server looks for it, as `npm run
 * build` puts it in dist/. One process builds while the others wait on a lock folder: on two cores,
 * four workers each compiling the same sources would cost four builds' time.
 */
export function buildServer(): Promise<string> {
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
    if (!existsSync(path.join(target, 'console', 'index.html')))
      throw new Error(`the build did not produce the console in ${target}`);
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
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`the build failed:\n${stdout}\n${stderr}`);
  }
  try {
    renameSync(scratch, target);
  } catch {
    // A run that took the lock over from one it found dead finished first: its build is the same.
    rmSync(scratch, { recursive: true, force: true });
  }
  if (!existsSync(path.join(target, 'main.js'))) throw new Error(`the build did not produce ${target}/main.js`);
}

function sourceHash(): string {
  const hash = createHash('sha256');
  const sources = [...listFiles(path.join(ROOT, 'src')), ...listFiles(path.join(ROOT, 'console'))];
  for (const file of [...sources, path.join(ROOT, 'tsconfig.json')]) {
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
