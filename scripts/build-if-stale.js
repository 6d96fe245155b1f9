// `npm start`, `npm run admin`, `npm run worker` and `npm run bench` run this first (their pre-scripts):
// it builds only what is older than its sources, so that a start on a current build is at once
// instead of recompiling for seconds. `npm run build` (and `npm run dev`) always build everything.
//
//   node scripts/build-if-stale.js             the server: src/ into dist/ (tsc)
//   node scripts/build-if-stale.js --console   and the console into dist/console/ (vite), as `npm start` needs
//
// Run from the package folder (npm does): it reads ./src, ./console, ./tsconfig.json and ./dist.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import process from 'node:process';

// Commands are this repository's own (its node_modules), wherever the script is run from.
const require = createRequire(import.meta.url);

/** The newest modification time under `entry` (a file or a folder), in milliseconds. */
function newest(entry) {
  const stat = statSync(entry);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(entry).reduce((latest, name) => Math.max(latest, newest(path.join(entry, name))), stat.mtimeMs);
}

/** True when `output` is missing, or older than any of `inputs` that exist. */
function isStale(output, inputs) {
  if (!existsSync(output)) return true;
  const built = statSync(output).mtimeMs;
  return inputs.some((input) => existsSync(input) && newest(input) > built);
}

/** The path of a package's command (`bin`). */
function binOf(pkg, name) {
  const manifest = require.resolve(`${pkg}/package.json`);
  const { bin } = JSON.parse(readFileSync(manifest, 'utf8'));
  return path.join(path.dirname(manifest), typeof bin === 'string' ? bin : bin[name]);
}

const TARGETS = [
  {
    what: 'Compiling src/ into dist/',
    // tsc rewrites every output at each build: dist/main.js is as old as the last build.
    output: path.join('dist', 'main.js'),
    inputs: ['src', 'tsconfig.json', 'package.json'],
    command: () => [binOf('typescript', 'tsc'), '-p', 'tsconfig.json'],
  },
  {
    what: 'Building the console into dist/console/',
    wanted: process.argv.includes('--console'),
    // vite empties dist/console and writes index.html at each build. The console imports a few
    // pure modules of src/ (order statuses, event types, states), so src/ counts too.
    output: path.join('dist', 'console', 'index.html'),
    inputs: ['console', 'src', 'package.json'],
    command: () => [binOf('vite', 'vite'), 'build', '--config', 'console/vite.config.ts', '--logLevel', 'warn'],
  },
];

for (const target of TARGETS) {
  if (target.wanted === false || !isStale(target.output, target.inputs)) continue;
  process.stderr.write(`${target.what} (sources changed since the last build)…\n`);
  try {
    execFileSync(process.execPath, target.command(), { stdio: 'inherit' });
  } catch {
    process.exitCode = 1;
    break;
  }
}
