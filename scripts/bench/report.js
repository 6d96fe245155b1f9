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

function scenarioTable(rows) {
  const lines = [
    '| scenario | database | req/s | p50 | p99 | peak RSS | errors | ceiling | ceiling req/s | ratio | target | met |',
    '|---|---|---:|---:|---:|---:|---:|---|---:|---:|---|---|',
  ];
  for (const row of rows) {
    const errors = `${row.failures}${row.exhausted ? ' (pool used up)' : ''}${row.failures > 0 || row.exhausted ? ' ⚠' : ''}`;
    const met = row.met ? 'yes' : `**no**: ${row.misses.join(', ')}`;
    lines.push(
      `| ${row.label} | ${DATABASE_NAMES[row.database]} | ${fixed(row.requestsPerSecond)} | ${ms(row.p50)} | ${ms(row.p99)} | ` +
        `${row.peakRssMb === null ? '–' : `${fixed(row.peakRssMb)} MB`} | ${errors} | ${row.ceilingLabel ?? '–'} | ` +
        `${fixed(row.ceilingRequestsPerSecond)} | ${row.ratio === null ? '–' : fixed(row.ratio, 2)} | ${row.target} | ${met} |`,
    );
  }
  return lines;
}

function webhookTable(rows) {
  const webhookRows = rows.filter((row) => row.webhook);
  if (webhookRows.length === 0) return [];
  const lines = [
    '',
    'Webhook delivery (orders created at a steady rate; latency from the API’s answer to the receiver’s arrival;',
    '"never delivered": not arrived within the bounded wait; a queue that did not drain had its endpoint replaced):',
    '',
    '| database | orders/s | deliveries/s | e2e p50 | e2e p99 | backlog when the load stopped | never delivered | queue after each round |',
    '|---|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const { database, webhook } of webhookRows) {
    lines.push(
      `| ${DATABASE_NAMES[database]} | ${fixed(webhook.ordersPerSecond)} | ${fixed(webhook.deliveriesPerSecond)} | ` +
        `${ms(webhook.p50)} | ${ms(webhook.p99)} | ${fixed(webhook.backlogAtStop)} | ${webhook.neverDelivered} | ` +
        `${webhook.queueAfterwards.join(', ')} |`,
    );
  }
  return lines;
}

function ceilingTable(ceilings) {
  return [
    '',
    'Ceilings (median of the rounds):',
    '',
    '| ceiling | req/s | p50 | p99 | errors |',
    '|---|---:|---:|---:|---:|',
    ...ceilings.map((c) => `| ${c.label} | ${fixed(c.requestsPerSecond)} | ${ms(c.p50)} | ${ms(c.p99)} | ${c.failures} |`),
  ];
}

export function markdown(report) {
  const { machine, options } = report;
  const failures = report.rows.filter((row) => row.firstFailure);
  return [
    `Benchmark of ${machine.commit.slice(0, 12)}${machine.commit.endsWith('-dirty') ? ' (dirty)' : ''}, ${report.startedAt}`,
    '',
    `Machine: ${machine.cpu}, ${machine.cores} cores, ${fixed(machine.totalMemoryMb)} MB, Node ${machine.node}, ${machine.platform}; ` +
      `${machine.pinned ? 'servers pinned to CPU 0, load generator and receiver to CPU 1' : 'not pinned (no taskset)'}.`,
    `Load: ${options.connections} connections, ${options.warmup} s warm-up, ${options.duration} s measured, ${options.rounds} round(s) ` +
      `interleaved with the ceilings; medians of the rounds. Webhook scenario at ${options.webhookRate} orders/s.`,
    '',
    ...scenarioTable(report.rows),
    ...webhookTable(report.rows),
    ...ceilingTable(report.ceilings),
    ...(failures.length > 0
      ? [
          '',
          'First failure of each scenario that had one:',
          '',
          ...failures.map((row) => `- ${row.scenario} (${row.database}): ${row.firstFailure}`),
        ]
      : []),
    '',
  ].join('\n');
}

/** Writes bench.md and bench.json into `dir`; resolves with their paths. */
export function writeReport(dir, report, text) {
  mkdirSync(dir, { recursive: true });
  const files = { markdown: path.join(dir, 'bench.md'), json: path.join(dir, 'bench.json') };
  writeFileSync(files.markdown, text);
  writeFileSync(files.json, `${JSON.stringify(report, null, 2)}\n`);
  return files;
}
