// The parent's side of a load: forks load.js on the load core, hands it the run, samples the
// server's memory while the measured interval lasts, and resolves with the figures.
import { clearInterval, setInterval } from 'node:timers';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { LOAD_CPU, nodeCommand, track } from './processes.js';

const LOAD = path.join(import.meta.dirname, 'load.js');
const SAMPLE_EVERY_MS = 100;

/** A field of /proc/<pid>/status in MB (VmRSS, VmHWM), or null where there is no /proc. */
export function memoryMb(pid, field) {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/**
 * Runs `run` (see load.js) and resolves with `{ result, answered, peakRssMb }`; `serverPid` is the
 * process whose resident memory is sampled during the measured interval; `onMeasure` is called
 * when that interval starts.
 */
export function runLoad(run, { serverPid, onMeasure } = {}) {
  const [command, args] = nodeCommand(LOAD_CPU, [LOAD]);
  const child = spawn(command, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  track(child);
  let peakRssMb = null;
  let sampler = null;
  const sample = () => {
    const rss = serverPid ? memoryMb(serverPid, 'VmRSS') : null;
    if (rss !== null) peakRssMb = Math.max(peakRssMb ?? 0, rss);
  };
  return new Promise((resolve, reject) => {
    child.on('message', (message) => {
      if (message.phase === 'measure') {
        sample();
        sampler = setInterval(sample, SAMPLE_EVERY_MS);
        onMeasure?.();
      } else if (message.phase === 'done') {
        clearInterval(sampler);
        sample();
        resolve({ result: message.result, answered: message.answered, peakRssMb });
      } else if (message.phase === 'failed') {
        clearInterval(sampler);
        reject(new Error(`the load generator failed: ${message.error}`));
      }
    });
    child.once('exit', (code) => {
      clearInterval(sampler);
      // A child may exit before its last message is read (a large one: the webhook answers), so a
      // run is lost only if the channel closes without it. After 'done' this rejection changes nothing.
      const lost = () => reject(new Error(`the load generator exited with ${code} before reporting`));
      if (child.connected) child.once('disconnect', lost);
      else lost();
    });
    child.send(run);
  });
}
