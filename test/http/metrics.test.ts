import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { negotiateExposition } from '../../src/health/metrics-exposition.js';
import { createPatient, createPractitioner } from '../helpers/factories.js';
import { parseExposition, type Exposition, type Format } from '../helpers/prometheus-text.js';
import { OPERATOR_TOKEN, TestApp, type TestClinic } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';

const TEXT = 'text/plain; version=0.0.4; charset=utf-8';
const OPENMETRICS = 'application/openmetrics-text; version=1.0.0; charset=utf-8';
/** What Prometheus 2.x sends by default. */
const PROMETHEUS_ACCEPT =
  'application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1';
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

/** The metrics families others increment: they must be served even before their first count. */
const REGISTERED_ELSEWHERE = {
  prometheus: [
    'rate_limit_rejections_total',
    'redis_outages_total',
    'webhook_delivery_attempts_total',
    'webhook_delivery_attempt_duration_seconds',
  ],
  openmetrics: [
    'rate_limit_rejections',
    'redis_outages',
    'webhook_delivery_attempts',
    'webhook_delivery_attempt_duration_seconds',
  ],
};

for (const dialect of DIALECTS) {
  describe(`GET /metrics on ${dialect}`, () => {
    let t: TestApp;
    let clinic: TestClinic;

    beforeAll(async () => {
      t = await TestApp.start({ dialect });
      clinic = await t.createClinic();
    });
    afterAll(async () => t.close());

    const scrape = (accept?: string) =>
      t.app.inject({
        method: 'GET',
        url: '/metrics',
        headers: { authorization: `Bearer ${OPERATOR_TOKEN}`, ...(accept === undefined ? {} : { accept }) },
      });

    async function scrapeParsed(accept?: string, format: Format = 'prometheus'): Promise<Exposition> {
      const res = await scrape(accept);
      expect(res.statusCode).toBe(200);
      return parseExposition(res.body, format);
    }

    it('when the operator token is missing or wrong, or only a partner key is sent, then 401 in the error envelope', async () => {
      const attempts: Record<string, string>[] = [
        {},
        { authorization: 'Bearer not-the-operator-token' },
        { 'x-api-key': clinic.apiKey },
      ];
      for (const headers of attempts) {
        const res = await t.request('GET', '/metrics', { headers });
        expect(res.status).toBe(401);
        expect(res.body).toEqual({
          success: false,
          error: { message: expect.stringMatching(/^Unauthorized/), code: 'UNAUTHORIZED', request_id: expect.any(String) },
        });
      }
    });

    it.each([
      ['no Accept header', undefined, TEXT, 'prometheus'],
      ['text/plain;version=0.0.4', 'text/plain;version=0.0.4', TEXT, 'prometheus'],
      ['*/*', '*/*', TEXT, 'prometheus'],
      ['application/openmetrics-text;version=1.0.0', 'application/openmetrics-text;version=1.0.0', OPENMETRICS, 'openmetrics'],
      ['the header Prometheus sends', PROMETHEUS_ACCEPT, OPENMETRICS, 'openmetrics'],
      ['application/json (what the API speaks; not refused here)', 'application/json', TEXT, 'prometheus'],
    ] as const)(
      'when the Accept header is %s, then 200 with the matching Content-Type and a parseable body',
      async (_, accept, type, format) => {
        const res = await scrape(accept);

        expect(res.statusCode).toBe(200);
        expect(res.headers['content-type']).toBe(type);
        const parsed = parseExposition(res.body, format);
        expect(parsed.samples.length).toBeGreaterThan(10);
        for (const name of REGISTERED_ELSEWHERE[format]) expect([...parsed.families.keys()]).toContain(name);
        // Without REDIS_URL there is no Redis to be up or down: no `redis_up 0` for an alert to misread.
        expect([...parsed.families.keys()]).not.toContain('redis_up');
      },
    );

    it('when partner requests were answered, then the duration histogram has series by route pattern and status, never by id', async () => {
      const practitionerId = await createPractitioner(t, clinic);
      const patientId = await createPatient(t, clinic, { practitionerId });
      const partner = t.partner(clinic.apiKey);
      expect((await partner.get(`/api/external/patient/${patientId}`)).status).toBe(200);
      expect((await partner.get('/api/external/patient/00000000-0000-4000-8000-000000000000')).status).toBe(404);
      expect((await partner.get(`/api/external/no-such-thing/${patientId}`)).status).toBe(404);
      expect((await t.request('GET', '/api/external/patient')).status).toBe(401);
      // Refused by the router itself (a broken percent-escape), before any hook.
      expect((await partner.get('/api/external/patient/%zz')).status).toBe(400);

      const { samples } = await scrapeParsed();
      const counts = samples.filter((s) => s.name === 'http_request_duration_seconds_count');
      const count = (method: string, route: string, status: string) =>
        counts.find((s) => s.labels.method === method && s.labels.route === route && s.labels.status_code === status)?.value;

      expect(count('GET', '/api/external/patient/:patientId', '200')).toBe(1);
      expect(count('GET', '/api/external/patient/:patientId', '404')).toBe(1);
      expect(count('POST', '/api/external/patient', '200')).toBe(1);
      expect(count('POST', '/api/external/practitioner', '200')).toBe(1);
      expect(count('GET', 'unmatched', '404')).toBe(1);
      expect(count('GET', 'unmatched', '401')).toBe(1);
      expect(count('GET', 'unmatched', '400')).toBe(1);
      for (const sample of samples.filter((s) => s.name.startsWith('http_request_duration_seconds'))) {
        expect(Object.keys(sample.labels).sort()).toEqual(
          sample.name.endsWith('_bucket') ? ['le', 'method', 'route', 'status_code'] : ['method', 'route', 'status_code'],
        );
        expect(sample.labels.route, 'a route label holds no id').not.toMatch(UUID);
      }
      const buckets = samples.filter(
        (s) => s.name === 'http_request_duration_seconds_bucket' && s.labels.route === '/api/external/patient/:patientId',
      );
      expect(buckets.some((s) => s.labels.le === '+Inf')).toBe(true);
    });

    it('when /metrics is scraped, then the scrape itself is counted under its route', async () => {
      await scrape();
      const { samples } = await scrapeParsed();
      expect(
        samples.find(
          (s) =>
            s.name === 'http_request_duration_seconds_count' && s.labels.route === '/metrics' && s.labels.status_code === '200',
        )?.value,
      ).toBeGreaterThanOrEqual(1);
    });

    it('when scraped, then the default process metrics are there, resident memory included', async () => {
      const { samples, families } = await scrapeParsed();
      expect(families.get('process_resident_memory_bytes')?.type).toBe('gauge');
      expect(samples.find((s) => s.name === 'process_resident_memory_bytes')?.value).toBeGreaterThan(0);
      for (const name of ['process_cpu_seconds_total', 'nodejs_heap_size_used_bytes', 'nodejs_eventloop_lag_seconds']) {
        expect([...families.keys()]).toContain(name);
      }
    });

    if (dialect === 'postgres') {
      it('when scraped on PostgreSQL, then the pool gauges tell open (idle, in use), waiting and maximum connections', async () => {
        await t.partner(clinic.apiKey).get('/api/external/carriers');
        const { samples } = await scrapeParsed();
        const value = (name: string, state?: string) =>
          samples.find((s) => s.name === name && (state === undefined || s.labels.state === state))?.value;

        // The test app's pool holds at most 5; the request above left at least one connection open.
        expect(value('db_pool_max_connections')).toBe(5);
        const open = (value('db_pool_connections', 'idle') ?? NaN) + (value('db_pool_connections', 'in_use') ?? NaN);
        expect(open).toBeGreaterThanOrEqual(1);
        expect(open).toBeLessThanOrEqual(5);
        expect(value('db_pool_waiting_requests')).toBe(0);
      });
    } else {
      it('when scraped on SQLite, then no pool gauges are served (one connection, nothing waits)', async () => {
        const { families } = await scrapeParsed();
        expect([...families.keys()].filter((name) => name.startsWith('db_pool_'))).toEqual([]);
      });
    }

    it('when OpenMetrics and plain-text scrapes run together, then each gets its own format and counters keep their names', async () => {
      const accepts = [PROMETHEUS_ACCEPT, 'text/plain', PROMETHEUS_ACCEPT, '*/*', 'application/openmetrics-text', undefined];
      const replies = await Promise.all([...accepts, ...accepts].map((accept) => scrape(accept)));

      for (const res of replies) {
        const format: Format = res.headers['content-type'] === OPENMETRICS ? 'openmetrics' : 'prometheus';
        const parsed = parseExposition(res.body, format);
        const counter = format === 'openmetrics' ? 'redis_outages' : 'redis_outages_total';
        expect(parsed.families.get(counter)?.type).toBe('counter');
        expect(parsed.samples.some((s) => s.name === 'redis_outages_total')).toBe(true);
      }
      // A plain scrape after OpenMetrics ones: prom-client's own OpenMetrics rendering would have renamed it.
      const after = await scrape('text/plain');
      expect(after.body).toMatch(/^# TYPE rate_limit_rejections_total counter$/m);
      expect(after.body).toMatch(/^redis_outages_total 0$/m);
    });
  });
}

describe('the metrics Accept negotiation', () => {
  it.each([
    ['application/openmetrics-text', 'openmetrics'],
    ['application/openmetrics-text; version=0.0.1', 'prometheus'],
    ['text/plain;q=1, application/openmetrics-text;version=1.0.0;q=0.5', 'prometheus'],
    ['application/openmetrics-text;version=1.0.0;q=0, text/plain', 'prometheus'],
    [
      'application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.7,application/openmetrics-text;version=1.0.0;q=0.5,text/plain;version=0.0.4;q=0.2',
      'openmetrics',
    ],
    ['image/png', 'prometheus'],
    ['', 'prometheus'],
  ] as const)('when Accept is "%s", then %s', (accept, format) => {
    expect(negotiateExposition(accept)).toBe(format);
  });
});

describe('/metrics in the OpenAPI document', () => {
  it('when the document is read, then /metrics is an Operator route behind the operator token, in both formats', async () => {
    const t = await TestApp.start({ dialect: 'sqlite' });
    try {
      const doc = (await t.request('GET', '/openapi.json')).body;
      const op = doc.paths['/metrics'].get;
      expect(op.tags).toEqual(['Operator']);
      expect(op.security).toEqual([{ operatorToken: [] }]);
      expect(Object.keys(op.responses['200'].content).sort()).toEqual([OPENMETRICS, TEXT].sort());
      expect(op.responses['401']).toBeDefined();
    } finally {
      await t.close();
    }
  });
});
