import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildServer } from '../helpers/server-process.js';

/**
 * `npm run bench -- --smoke` (issue 12): one short round of every scenario, so that the benchmark
 * cannot rot. Structure only, never speed: every scenario ran on every database present without a
 * failed request, has its ceiling and ratio, and appears in the Markdown; and nothing it started
 * outlives it.
 */

const ROOT = path.resolve(import.meta.dirname, '../..');
const postgresUrl = inject('postgresUrl');
const redisUrl = inject('redisUrl');
const SCENARIOS = [
  'get-carriers',
  'get-carrier-services',
  'get-order',
  'post-practitioner',
  'post-patient',
  'post-order',
  'post-refill',
  'webhook-delivery',
];
const DATABASES = postgresUrl ? ['sqlite', 'postgres'] : ['sqlite'];

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('the benchmark smoke run', { timeout: 240_000 }, () => {
  const out = mkdtempSync(path.join(tmpdir(), 'bench-smoke-'));
  let report: any;
  let markdown: string;
  let stdout: string;

  beforeAll(async () => {
    // The test build (compiled once per source content), since CI builds no dist/.
    const main = await buildServer();
    // The databases the suite runs against: PostgreSQL as the tests found it, or none.
    const env = { ...process.env, DATABASE_URL: postgresUrl ?? '', REDIS_URL: redisUrl ?? '' };
    const args = ['scripts/bench/run.js', '--smoke', '--server', main, '--out', out, ...(postgresUrl ? [] : ['--sqlite-only'])];
    ({ stdout } = await promisify(execFile)(process.execPath, args, { cwd: ROOT, env, timeout: 200_000 }));
    report = JSON.parse(readFileSync(path.join(out, 'bench.json'), 'utf8'));
    markdown = readFileSync(path.join(out, 'bench.md'), 'utf8');
  }, 240_000);
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('when it runs, then every scenario ran on every database present, every request succeeded', () => {
    expect(report.databases).toEqual(DATABASES);
    const ran = report.rows.map((row: any) => `${row.database}/${row.scenario}`);
    expect(ran).toEqual(DATABASES.flatMap((database) => SCENARIOS.map((scenario) => `${database}/${scenario}`)));
    for (const row of report.rows) {
      expect(row.requestsPerSecond, `${row.database}/${row.scenario}`).toBeGreaterThan(0);
      expect({
        scenario: row.scenario,
        failures: row.failures,
        exhausted: row.exhausted,
        firstFailure: row.firstFailure,
      }).toEqual({
        scenario: row.scenario,
        failures: 0,
        exhausted: false,
        firstFailure: null,
      });
    }
  });

  it('when it runs, then each request scenario has its ceiling from the same run and a ratio to it', () => {
    for (const row of report.rows.filter((r: any) => r.scenario !== 'webhook-delivery')) {
      expect(row.ceiling, row.scenario).toMatch(/^(bare-node-http|raw-sqlite-tx|raw-pg-tx)$/);
      expect(row.ceilingRequestsPerSecond, row.scenario).toBeGreaterThan(0);
      expect(row.ratio, row.scenario).toBeGreaterThan(0);
    }
    const orders = report.rows.filter((r: any) => r.scenario === 'post-order').map((r: any) => r.ceiling);
    expect(orders).toEqual(DATABASES.map((database) => (database === 'sqlite' ? 'raw-sqlite-tx' : 'raw-pg-tx')));
  });

  it('when orders are created at a steady rate, then each one’s order.created reaches the receiver', () => {
    for (const row of report.rows.filter((r: any) => r.scenario === 'webhook-delivery')) {
      expect(row.webhook.deliveriesPerSecond).toBeGreaterThan(0);
      expect(row.webhook.neverDelivered).toBe(0);
      expect(row.webhook.p50).toBeGreaterThanOrEqual(0);
    }
  });

  it('when it runs, then the Markdown (printed and written) has a row per scenario and database, the machine and the commit', () => {
    expect(stdout).toContain(markdown.trim());
    const names: Record<string, string> = { sqlite: 'SQLite', postgres: 'PostgreSQL' };
    for (const row of report.rows) {
      expect(markdown).toContain(`| ${row.label} | ${names[row.database] ?? row.database} |`);
    }
    expect(markdown).toContain(report.machine.commit.slice(0, 12));
    expect(markdown).toContain(`Node ${process.version}`);
  });

  it('when it ends, then its processes, temporary files and databases are gone', async () => {
    expect(report.created.pids.length).toBeGreaterThan(0);
    expect(report.created.pids.filter(isRunning)).toEqual([]);
    expect(existsSync(report.created.tmp)).toBe(false);
    if (!postgresUrl) return;
    expect(report.created.postgresDatabases).toHaveLength(2);
    const client = new pg.Client({ connectionString: postgresUrl });
    await client.connect();
    try {
      const { rows } = await client.query('SELECT datname FROM pg_database WHERE datname = ANY($1)', [
        report.created.postgresDatabases,
      ]);
      expect(rows).toEqual([]);
    } finally {
      await client.end();
    }
  });
});
