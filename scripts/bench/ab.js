// A/B of compiled builds on one route, for a machine shared with other work (docs/performance.md, "The
// request log"): every build's server is started at once (each on its own fresh SQLite file or
// PostgreSQL database, pinned to the server core as `npm run bench` pins it, one provisioned clinic
// each), then each cycle loads every build in turn, the order rotated per cycle, so that the
// machine's drift falls on all of them alike. A server waits idle while another is loaded.
//
//   node scripts/bench/ab.js --dists dist-a,dist-b [--db sqlite|postgres] [--route carriers|get-order|order]
//                            [--cycles 6] [--duration 5] [--warmup 1]
//
// Each --dists entry is a folder holding a compiled server (main.js), e.g. copies of dist/ made with
// `cp -r dist dist-a` before and after a change. Prints each run, then per build the medians of req/s
// and of the server's CPU time per answered request (user + system, all its threads).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { createPostgresDatabases } from './databases.js';
import { log } from './log.js';
import { cpuMicroseconds, runLoad } from './load-runner.js';
import { killAll } from './processes.js';
import { provisionClinic } from './provision.js';
import { projectEnvironment, startProjectServer } from './servers.js';

const { values } = parseArgs({
  options: {
    dists: { type: 'string' },
    db: { type: 'string', default: 'sqlite' },
    route: { type: 'string', default: 'carriers' },
    cycles: { type: 'string', default: '6' },
    duration: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '1' },
  },
});
if (!values.dists) throw new Error('--dists a,b: the compiled servers to compare');
const dists = values.dists.split(',');
const cycles = Number(values.cycles);

/** The load of one route on a provisioned clinic (load.js's kinds). */
function loadOf(clinic) {
  switch (values.route) {
    case 'carriers':
      return { kind: 'fixed', method: 'GET', path: '/api/external/carriers' };
    case 'get-order':
      return { kind: 'rotate', method: 'GET', paths: clinic.orderIds.map((id) => `/api/external/medication-order/${id}`) };
    case 'order':
      return { kind: 'order', clinicId: clinic.clinicId, patients: clinic.patients };
    default:
      throw new Error(`unknown --route ${values.route}: carriers, get-order or order`);
  }
}

/**
 * Waits until every server is idle (under 5 % of a core over half a second, at most 60 s): all share
 * the server core, so one's background work (an order's webhook events, a flush) would otherwise be
 * measured against the next one.
 */
async function idle(servers) {
  const deadline = Date.now() + 60_000;
  for (const server of servers) {
    for (;;) {
      const before = cpuMicroseconds(server.pid);
      await sleep(500);
      if (before === null || cpuMicroseconds(server.pid) - before < 25_000 || Date.now() > deadline) break;
    }
  }
}

const median = (numbers) => {
  const sorted = [...numbers].sort((a, b) => a - b);
  const middle = sorted.length / 2;
  return sorted.length % 2 ? sorted[Math.floor(middle)] : (sorted[middle - 1] + sorted[middle]) / 2;
};

const tmp = mkdtempSync(path.join(os.tmpdir(), 'fulfillment-ab-'));
const databases = [];
const targets = [];
try {
  for (const dist of dists) {
    let databaseUrl = path.join(tmp, `${path.basename(dist)}.sqlite`);
    if (values.db === 'postgres') {
      const database = await createPostgresDatabases();
      if (database === null) throw new Error('PostgreSQL does not answer');
      databases.push(database);
      databaseUrl = database.projectUrl;
    }
    const started = await startProjectServer({
      main: path.join(dist, 'main.js'),
      name: dist,
      env: projectEnvironment({ databaseUrl }),
      workDir: tmp,
      logFile: path.join(tmp, `${path.basename(dist)}.log`),
    });
    const server = { ...started, baseUrl: `http://127.0.0.1:${started.port}` };
    const clinic = await provisionClinic(server.baseUrl, `A/B ${dist}`);
    targets.push({ dist, server, clinic, runs: [] });
  }
  for (let cycle = 0; cycle < cycles; cycle++) {
    for (let i = 0; i < targets.length; i++) {
      const target = targets[(i + cycle) % targets.length];
      await idle(targets.map((t) => t.server));
      const measured = await runLoad(
        {
          url: target.server.baseUrl,
          connections: 50,
          warmup: Number(values.warmup),
          duration: Number(values.duration),
          headers: { 'content-type': 'application/json', 'x-api-key': target.clinic.key },
          load: loadOf(target.clinic),
          prefix: `ab${cycle}`,
        },
        { serverPid: target.server.pid },
      );
      target.runs.push({ rps: measured.result.requestsPerSecond, cpu: measured.cpuUsPerRequest });
      log(
        `cycle ${cycle} ${target.dist}: ${Math.round(measured.result.requestsPerSecond)} req/s, ${measured.cpuUsPerRequest?.toFixed(1)} µs CPU/req`,
      );
    }
  }
  process.stdout.write(`${values.db} ${values.route}, ${cycles} cycles of ${values.duration} s (medians, then each cycle):\n`);
  for (const { dist, runs } of targets) {
    const rps = runs.map((run) => run.rps);
    const cpu = runs.map((run) => run.cpu);
    process.stdout.write(
      `${dist}\t${Math.round(median(rps))} req/s\t${median(cpu).toFixed(1)} µs CPU/req\t[${rps.map(Math.round).join(', ')}]\t[${cpu.map((c) => c.toFixed(0)).join(', ')}]\n`,
    );
  }
} finally {
  for (const target of targets) await target.server.stop();
  await killAll();
  for (const database of databases) await database.drop().catch(() => undefined);
  rmSync(tmp, { recursive: true, force: true });
}
