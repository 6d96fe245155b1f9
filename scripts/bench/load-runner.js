// The parent's side of a load: forks load.js on the load core, hands it the run, samples the
// server's memory and reads its CPU time while the measured interval lasts, and resolves with the figures.
import { clearInterval, setInterval } from 'node:timers';
import { spawn, spawnSync } from 'node:child_process';
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

/** Clock ticks per second of /proc/<pid>/stat's times (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || 100;

/** The CPU time a process has used so far (utime + stime of /proc/<pid>/stat), in µs; null where there is no /proc. */
export function cpuMicroseconds(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The fields after the command name, which is in parentheses and may hold spaces: state is field 3,
    // utime field 14, stime field 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND) * 1e6;
  } catch {
    return null;
  }
}

/**
 * Runs `run` (see load.js) and resolves with `{ result, answered, peakRssMb, cpuUsPerRequest }`;
 * `serverPid` is the process whose resident memory is sampled, and whose CPU time (user and system)
 * is read at the start and the end of the measured interval: that time divided by the requests
 * answered in the interval is `cpuUsPerRequest` (everything the process did meanwhile, its
 * background work included). `onMeasure` is called when that interval starts.
 */
export function runLoad(run, { serverPid, onMeasure } = {}) {
  const [command, args] = nodeCommand(LOAD_CPU, [LOAD]);
  const child = spawn(command, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  track(child);
  let peakRssMb = null;
  let sampler = null;
  let cpuAtStart = null;
  const sample = () => {
    const rss = serverPid ? memoryMb(serverPid, 'VmRSS') : null;
    if (rss !== null) peakRssMb = Math.max(peakRssMb ?? 0, rss);
  };
  return new Promise((resolve, reject) => {
    child.on('message', (message) => {
      if (message.phase === 'measure') {
        cpuAtStart = serverPid ? cpuMicroseconds(serverPid) : null;
        sample();
        sampler = setInterval(sample, SAMPLE_EVERY_MS);
        onMeasure?.();
      } else if (message.phase === 'done') {
        const cpuAtEnd = serverPid ? cpuMicroseconds(serverPid) : null;
        clearInterval(sampler);
        sample();
        const requests = message.result.requests;
        const cpuUsPerRequest =
          cpuAtStart === null || cpuAtEnd === null || !(requests > 0) ? null : (cpuAtEnd - cpuAtStart) / requests;
        resolve({ result: message.result, answered: message.answered, peakRssMb, cpuUsPerRequest });
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
