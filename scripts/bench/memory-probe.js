// Where a server's memory goes, from inside it (docs/performance.md, "Memory"). Loaded into the
// project server with `NODE_OPTIONS=--import=$PWD/scripts/bench/memory-probe.js` (an absolute path:
// the benchmark passes NODE_OPTIONS on to the processes it starts, and starts the servers in a folder
// of their own); every other node process ignores it. Every 250 ms it
// appends one JSON line to $MEMORY_PROBE_DIR/probe-<pid>.jsonl (default: the system's temp folder):
// RSS, the V8 heap (committed and used, per space), external and array buffers, CPU time and the
// garbage collections so far. `kill -USR2 <pid>`, or creating $MEMORY_PROBE_DIR/snapshot-now, writes a
// heap snapshot beside it (summarised by heap-summary.js). A snapshot pauses the server for seconds
// and leaves its RSS about 150 MB higher: take one in a run of its own, never in a measured one.
import { appendFileSync, existsSync, unlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PerformanceObserver, constants } from 'node:perf_hooks';
import process from 'node:process';
import { clearInterval, setInterval } from 'node:timers';
import v8 from 'node:v8';

const MB = 1024 * 1024;

function probe() {
  const dir = process.env.MEMORY_PROBE_DIR ?? os.tmpdir();
  const out = path.join(dir, `probe-${process.pid}.jsonl`);
  const trigger = path.join(dir, 'snapshot-now');
  const startedAt = Date.now();
  const gc = { minor: { count: 0, ms: 0 }, major: { count: 0, ms: 0 }, other: { count: 0, ms: 0 } };
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = entry.detail?.kind;
      const bucket =
        kind === constants.NODE_PERFORMANCE_GC_MINOR
          ? gc.minor
          : kind === constants.NODE_PERFORMANCE_GC_MAJOR
            ? gc.major
            : gc.other;
      bucket.count += 1;
      bucket.ms += entry.duration;
    }
  }).observe({ entryTypes: ['gc'] });

  const snapshot = () => {
    const file = v8.writeHeapSnapshot(path.join(dir, `heap-${process.pid}-${Date.now() - startedAt}.heapsnapshot`));
    appendFileSync(out, `${JSON.stringify({ snapshot: file })}\n`);
  };
  process.on('SIGUSR2', snapshot);

  const sampler = setInterval(() => {
    const memory = process.memoryUsage();
    const spaces = Object.fromEntries(
      v8.getHeapSpaceStatistics().map((space) => [space.space_name, Math.round(space.space_size / MB)]),
    );
    const line = {
      t: Date.now() - startedAt,
      rss: Math.round(memory.rss / MB),
      heapTotal: Math.round(memory.heapTotal / MB),
      heapUsed: Math.round(memory.heapUsed / MB),
      external: Math.round(memory.external / MB),
      arrayBuffers: Math.round(memory.arrayBuffers / MB),
      cpu: process.cpuUsage(),
      gc,
      spaces,
    };
    appendFileSync(out, `${JSON.stringify(line)}\n`);
    if (!existsSync(trigger)) return;
    try {
      // Two servers may see it: the one that removes it takes the snapshot.
      unlinkSync(trigger);
    } catch {
      return;
    }
    snapshot();
  }, 250);
  sampler.unref();
  process.once('exit', () => clearInterval(sampler));
}

// Only the project server (dist/main.js): not the benchmark, its load generator or its ceilings.
if (/dist[/\\]main\.js$/.test(process.argv[1] ?? '')) probe();
