// The benchmark's outputs: a Markdown report (printed and written as bench.md) and the same
// figures as JSON (bench.json), both naming the machine and the commit.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const fixed = (value, digits = 0) =>
  value === null || value === undefined
    ? '–'
    : value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const ms = (value) =>
  value === null || value === undefined ? '–' : `${fixed(value, value < 10 && !Number.isInteger(value) ? 1 : 0)} ms`;
const DATABASE_NAMES = { sqlite: 'SQLite', postgres: 'PostgreSQL' };

const cpu = (value) => (value === null || value === undefined ? '–' : `${fixed(value)} µs`);
const ratio = (value) => (value === null || value === undefined ? '–' : fixed(value, 2));

function scenarioTable(rows) {
  if (rows.every((row) => row.drain)) return [];
  const lines = [
    'ratio: req/s ÷ the ceiling’s in the same round (median of the rounds); bare: the ceiling doing less (a fixed',
    'body, or five inserts into tables of its own); composite: Fastify doing the same work as the route in plain code, on',
    'the project’s tables; CPU/req: the server process’s user + system CPU time over the measured interval ÷ its answers.',
    '',
    '| scenario | database | req/s | p50 | p99 | CPU/req | peak RSS | errors | bare ceiling | bare req/s | ratio | composite req/s | composite CPU/req | ratio | target | met |',
    '|---|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---|---|',
  ];
  // The drain's figures are of another kind: its own table.
  for (const row of rows.filter((r) => !r.drain)) {
    const errors = `${row.failures}${row.exhausted ? ' (pool used up)' : ''}${row.failures > 0 || row.exhausted ? ' ⚠' : ''}`;
    const met = row.met ? 'yes' : `**no**: ${row.misses.join(', ')}`;
    lines.push(
      `| ${row.label} | ${DATABASE_NAMES[row.database]} | ${fixed(row.requestsPerSecond)} | ${ms(row.p50)} | ${ms(row.p99)} | ` +
        `${cpu(row.cpuUsPerRequest)} | ${row.peakRssMb === null ? '–' : `${fixed(row.peakRssMb)} MB`} | ${errors} | ` +
        `${row.ceilingLabel ?? '–'} | ${fixed(row.ceilingRequestsPerSecond)} | ${ratio(row.ratio)} | ` +
        `${fixed(row.compositeRequestsPerSecond)} | ${cpu(row.compositeCpuUsPerRequest)} | ${ratio(row.compositeRatio)} | ` +
        `${row.target} | ${met} |`,
    );
  }
  return lines;
}

const flagged = (count) => `${count}${count > 0 ? ' ⚠' : ''}`;
const workersOf = (workers) => (workers > 0 ? `${workers} processes apart` : 'in the server');
const seconds = (value) => (value === null || value === undefined ? '–' : `${fixed(value / 1000, 1)} s`);

function webhookTable(rows) {
  const webhookRows = rows.filter((row) => row.webhook);
  if (webhookRows.length === 0) return [];
  const lines = [
    '',
    'Webhook delivery (orders created at a steady rate; latency from the API’s answer to the receiver’s arrival;',
    '"never delivered": not arrived within the bounded wait; duplicates: a webhook-id that arrived twice; bad',
    'signatures: not verified with the endpoint’s secret; a queue that did not drain had its endpoint replaced):',
    '',
    '| database | worker | orders/s | deliveries/s | e2e p50 | e2e p99 | backlog when the load stopped | never delivered | duplicates | bad signatures | queue after each round |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const { database, webhook } of webhookRows) {
    lines.push(
      `| ${DATABASE_NAMES[database]} | ${workersOf(webhook.workers)} | ${fixed(webhook.ordersPerSecond)} | ${fixed(webhook.deliveriesPerSecond)} | ` +
        `${ms(webhook.p50)} | ${ms(webhook.p99)} | ${fixed(webhook.backlogAtStop)} | ${webhook.neverDelivered} | ` +
        `${flagged(webhook.duplicates)} | ${flagged(webhook.badSignatures)} | ${webhook.queueAfterwards.join(', ')} |`,
    );
  }
  return lines;
}

function drainTable(rows, options) {
  const drainRows = rows.filter((row) => row.drain);
  if (drainRows.length === 0) return [];
  const lines = [
    '',
    `Webhook drain (${fixed(options.drainEvents)} events waiting: the receiver answered 503 while the orders were created and`,
    'until each delivery had failed once; then it answered 204 and the partner called POST /api/external/webhook/recover.',
    'events/s: deliveries arrived ÷ time from the recover call’s answer to the last arrival; time to empty: from that',
    'answer until the server’s webhook_delivery_backlog read 0; missing: events that never arrived; duplicates: a',
    'webhook-id that arrived twice; bad signatures: not verified with the endpoint’s secret; medians of the rounds, counts summed):',
    '',
    '| scenario | database | events waiting | recover answered in | scheduled | events/s | time to empty | delivered | missing | duplicates | bad signatures | peak RSS | target | met |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|',
  ];
  for (const row of drainRows) {
    const { drain } = row;
    const met = row.met ? 'yes' : `**no**: ${row.misses.join(', ')}`;
    lines.push(
      `| ${row.label} | ${DATABASE_NAMES[row.database]} | ${fixed(drain.created)} | ${ms(drain.recoverMs)} | ${fixed(drain.scheduled)} | ` +
        `${fixed(drain.eventsPerSecond)} | ${seconds(drain.timeToEmptyMs)} | ${fixed(drain.delivered)} | ${flagged(drain.missing)} | ` +
        `${flagged(drain.duplicates)} | ${flagged(drain.badSignatures + drain.unverified)} | ` +
        `${row.peakRssMb === null ? '–' : `${fixed(row.peakRssMb)} MB`} | ${row.target} | ${met} |`,
    );
  }
  // Why a drain fell short (did not drain in time, recover failed or left deliveries out…).
  const notes = drainRows.flatMap((row) => row.drain.notes.map((note) => `- ${DATABASE_NAMES[row.database]}: ${note}`));
  return [...lines, ...(notes.length > 0 ? ['', ...notes] : [])];
}

function ceilingTable(ceilings) {
  if (ceilings.length === 0) return [];
  return [
    '',
    'Ceilings (median of the rounds):',
    '',
    '| ceiling | req/s | p50 | p99 | CPU/req | errors |',
    '|---|---:|---:|---:|---:|---:|',
    ...ceilings.map(
      (c) =>
        `| ${c.label} | ${fixed(c.requestsPerSecond)} | ${ms(c.p50)} | ${ms(c.p99)} | ${cpu(c.cpuUsPerRequest)} | ${c.failures} |`,
    ),
  ];
}

export function markdown(report) {
  const { machine, options } = report;
  const failures = report.rows.filter((row) => row.firstFailure);
  return (
    [
      `Benchmark of ${machine.commit.slice(0, 12)}${machine.commit.endsWith('-dirty') ? ' (dirty)' : ''}, ${report.startedAt}`,
      '',
      `Machine: ${machine.cpu}, ${machine.cores} cores, ${fixed(machine.totalMemoryMb)} MB, Node ${machine.node}, ${machine.platform}; ` +
        `${machine.pinned ? 'servers pinned to CPU 0, load generator and receiver to CPU 1' : 'not pinned (no taskset)'}.`,
      `Load: ${options.connections} connections, ${options.warmup} s warm-up, ${options.duration} s measured, ${options.rounds} round(s) ` +
        `interleaved with the ceilings; medians of the rounds. Webhook scenarios at ${options.webhookRate} orders/s` +
        `${report.rows.some((row) => row.drain) ? `; drain of ${fixed(options.drainEvents)} events` : ''}.`,
      '',
      ...scenarioTable(report.rows),
      ...webhookTable(report.rows),
      ...drainTable(report.rows, options),
      ...ceilingTable(report.ceilings),
      ...(report.compositeDifferences.length > 0
        ? [
            '',
            'Composite ceilings that did not answer their first request as the project did (their ratios compare other work):',
            '',
            ...report.compositeDifferences.map(({ ceiling, differences }) => `- ${ceiling}: ${differences.join('; ')}`),
          ]
        : []),
      ...(failures.length > 0
        ? [
            '',
            'First failure of each scenario that had one:',
            '',
            ...failures.map((row) => `- ${row.scenario} (${row.database}): ${row.firstFailure}`),
          ]
        : []),
      '',
    ]
      .join('\n')
      // A table left out (none of its rows ran) leaves no double blank line.
      .replace(/\n{3,}/g, '\n\n')
  );
}

/** Writes bench.md and bench.json into `dir`; resolves with their paths. */
export function writeReport(dir, report, text) {
  mkdirSync(dir, { recursive: true });
  const files = { markdown: path.join(dir, 'bench.md'), json: path.join(dir, 'bench.json') };
  writeFileSync(files.markdown, text);
  writeFileSync(files.json, `${JSON.stringify(report, null, 2)}\n`);
  return files;
}
