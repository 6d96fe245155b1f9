// `npm run admin` and `npm run worker` run this first (preadmin, preworker): it compiles src/ into
// dist/ only when a source is newer than the last build, so that a call on a current build starts
// at once instead of recompiling for seconds. `npm start` and `npm run build` always build.
// Run from the package folder (npm does): it reads ./src, ./tsconfig.json and ./dist.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import process from 'node:process';

/** The file the last build wrote: dist/main.js (tsc rewrites every output at each build). */
const OUTPUT = path.join('dist', 'main.js');
const INPUTS = ['src', 'tsconfig.json', 'package.json'];

/** The newest modification time under `entry` (a file or a folder), in milliseconds. */
function newest(entry) {
  const stat = statSync(entry);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(entry).reduce((latest, name) => Math.max(latest, newest(path.join(entry, name))), stat.mtimeMs);
}

const stale = !existsSync(OUTPUT) || INPUTS.some((input) => existsSync(input) && newest(input) > statSync(OUTPUT).mtimeMs);
if (stale) {
  process.stderr.write('Compiling src/ into dist/ (sources changed since the last build)…\n');
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  try {
    execFileSync(process.execPath, [tsc, '-p', 'tsconfig.json'], { stdio: 'inherit' });
  } catch {
    process.exitCode = 1;
  }
}
