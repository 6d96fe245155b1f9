// Child processes of the benchmark: spawned pinned to a core when taskset exists, waited for until
// they print the port they listen on, and all killed at the end (or on Ctrl-C).
import { clearTimeout, setTimeout } from 'node:timers';
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import os from 'node:os';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';

/** Servers under test run on this core, the load generator and the webhook receiver on the other. */
export const SERVER_CPU = 0;
export const LOAD_CPU = 1;

const canPin = os.availableParallelism() >= 2 && spawnSync('taskset', ['-c', '0', 'true']).status === 0;

/** Whether processes are pinned (reported with the machine). */
export const pinning = canPin;

/** The command and arguments that run `node args…` on `cpu` (plain node without taskset). */
export function nodeCommand(cpu, args) {
  if (!canPin) return [process.execPath, args];
  // taskset execs node in place, so the child's pid is node's (its /proc/<pid>/status is the server's).
  return ['taskset', ['-c', String(cpu), process.execPath, ...args]];
}

const running = new Set();

/**
 * Spawns `node args…` on `cpu` with standard output to `logFile` (a file, so that the server's
 * logs cost it the same as in production and none of our CPU), and resolves once that output
 * matches `ready` (its first group is the port; a process without one, a webhook worker, has port
 * null). Rejects with the output if it exits first.
 */
export async function startNode({ name, args, env, cpu, cwd, logFile, ready, timeoutMs = 60_000 }) {
  const [command, commandArgs] = nodeCommand(cpu, args);
  const out = openSync(logFile, 'w');
  const child = spawn(command, commandArgs, { env, cwd, stdio: ['ignore', out, 'pipe', 'ipc'] });
  closeSync(out);
  running.add(child);
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr = (stderr + chunk).slice(-20_000)));
  const exited = new Promise((resolve) =>
    child.once('exit', (code, signal) => {
      running.delete(child);
      resolve(code ?? signal);
    }),
  );
  const started = Date.now();
  for (;;) {
    const output = readFileSync(logFile, 'utf8');
    const match = ready.exec(output);
    if (match) {
      const alive = () => child.exitCode === null && child.signalCode === null;
      /** Throws with the end of its output when the process has exited (a crash under load). */
      const assertAlive = () => {
        if (alive()) return;
        const tail = readFileSync(logFile, 'utf8').slice(-4000);
        throw new Error(`${name} exited (${child.exitCode ?? child.signalCode}):\n${tail}\n${stderr}`);
      };
      const port = match[1] === undefined ? null : Number(match[1]);
      return { name, child, pid: child.pid, port, assertAlive, stop: () => stopChild(child, exited) };
    }
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`${name} exited before it listened:\n${output.slice(-4000)}\n${stderr}`);
    }
    if (Date.now() - started > timeoutMs) {
      await stopChild(child, exited);
      throw new Error(`${name} did not listen within ${timeoutMs} ms:\n${output.slice(-4000)}\n${stderr}`);
    }
    await sleep(50);
  }
}

/** SIGTERM, then SIGKILL if it has not exited within five seconds. */
async function stopChild(child, exited) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

/** Registers a child started elsewhere (the load generator) so that Ctrl-C kills it too. */
export function track(child) {
  running.add(child);
  child.once('exit', () => running.delete(child));
}

/** Kills every child still running, at once (the end of a failed run, Ctrl-C). */
export async function killAll() {
  await Promise.all(
    [...running].map(
      (child) =>
        new Promise((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGKILL');
        }),
    ),
  );
}
