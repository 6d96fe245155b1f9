import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshProcessDatabase, type ProcessDatabase } from '../helpers/process-database.js';
import { FORWARDED_HTTPS, killServerProcesses, type ServerProcess } from '../helpers/server-process.js';
import { OPERATOR_TOKEN } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';
import {
  createWorstCaseFixture,
  expectBoundedAnswer,
  inputRoutesOf,
  worstCasesOfRoute,
  type InputRoute,
  type RawAnswer,
  type WorstCaseFixture,
} from '../helpers/worst-case-routes.js';
import { startProductionServer } from './partner-server.js';

/**
 * Bounded work for any input, timed (issue 9, item 1): every worst case of every partner,
 * operator and portal route that takes a body or a query string (test/helpers/worst-cases.ts:
 * nothing in them is random, so every run sends the same bytes) goes over real HTTP to a production server process,
 * on a SQLite file and on PostgreSQL, and is answered within 100 ms with under 16 KB; and while
 * worst cases arrive back to back, another client is still served.
 */

/**
 * Routes whose every valid request hashes a password with scrypt (tens of milliseconds of a
 * libuv thread by design, the same whatever the input's shape): their answers are checked for size
 * and bounds like every other, but not against the 100 ms. Creating a staff account also judges
 * its password's strength first (zxcvbn-ts, bounded to its first 64 characters; its lists load on
 * first use).
 */
const PASSWORD_HASHING_ROUTES = new Set([
  'POST /api/admin/session',
  'POST /api/admin/staff',
  'POST /api/portal/session',
  'POST /api/portal/invitations/accept',
]);

/** The answer of a request the server could not read as HTTP (src/http/framework-errors.ts). */
const MALFORMED_HTTP = 'Malformed HTTP request';

/** Each case is sent up to this many times; its median time is the one asserted. */
const TRIES = 5;
/**
 * The median of 5 tries is under the limit exactly when 3 of them are: the tries of a case stop once
 * 3 are under it (or 3 are not), since the others cannot change the verdict. Each case gets the
 * verdict it got from 5 tries with 3 sends where they take under the limit (the usual case), 5 at
 * most. Each answer's bounds are checked as before: a case's bytes are the same at every try, and so
 * is its answer, so fewer tries check the same bounds.
 */
const DECIDING_TRIES = Math.ceil(TRIES / 2);
const MEDIAN_LIMIT_MS = 100;
/** A /healthz request of the bystander not answered within this is a failure (the unbounded validation held it 10 s). */
const BYSTANDER_TIMEOUT_MS = 1_000;

interface TimedAnswer extends RawAnswer {
  /** From the moment the whole request was handed to the system to the last byte of the answer. */
  ms: number;
}

/**
 * One keep-alive connection's worth of requests to `baseUrl`, as the TLS proxy in front of a
 * production server would send them (FORWARDED_HTTPS), each timed.
 */
function httpClient(baseUrl: string) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  interface Request {
    method: string;
    url: string;
    headers: Record<string, string>;
    payload?: string;
  }
  /**
   * The request's headers, with the body's Content-Length always stated: Node's client frames a
   * DELETE's body with neither Content-Length nor chunked encoding unless told (it does not expect
   * one), so the server saw a DELETE without a body, then the body's bytes as a malformed next
   * request, refused with a 400 and the connection closed under the client still writing (EPIPE).
   */
  const headersOf = (request: Request): Record<string, string> => ({
    ...FORWARDED_HTTPS,
    ...request.headers,
    ...(request.payload === undefined ? {} : { 'content-length': String(Buffer.byteLength(request.payload)) }),
  });
  /**
   * Sent once, never again on a failure: a refused large body is answered before
   * it is all sent, and the server reads the rest before closing (src/http/lingering-close.ts), so the
   * answer always arrives. (This client once retried on EPIPE and ECONNRESET to get around its loss.)
   * The one failure sent again is the keep-alive race Node documents (`request.reusedSocket`): a
   * request written on a kept-alive connection just as the server closes it idle was never read.
   */
  const send = (request: Request, timeoutMs = 30_000, reuse = true): Promise<TimedAnswer> =>
    new Promise<TimedAnswer>((resolve, reject) => {
      let sentAt = 0;
      const outgoing = http.request(
        `${baseUrl}${request.url}`,
        { method: request.method, agent, headers: headersOf(request), timeout: timeoutMs },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () =>
            resolve({
              status: response.statusCode ?? 0,
              body: Buffer.concat(chunks).toString('utf8'),
              headers: response.headers,
              ms: performance.now() - sentAt,
            }),
          );
          response.on('error', reject);
        },
      );
      outgoing.on('finish', () => (sentAt = performance.now()));
      outgoing.on('timeout', () => outgoing.destroy(new Error(`no answer within ${timeoutMs} ms`)));
      outgoing.on('error', (error: NodeJS.ErrnoException) => {
        if (reuse && outgoing.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE')) {
          send(request, timeoutMs, false).then(resolve, reject);
          return;
        }
        reject(new Error(`${request.method} ${request.url.slice(0, 120)}: ${error.message}`, { cause: error }));
      });
      outgoing.end(request.payload);
    });
  return { send, close: () => agent.destroy() };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

afterAll(killServerProcesses);

describe.each(DIALECTS)('worst cases against a server process on %s', (dialect) => {
  let database: ProcessDatabase;
  let server: ServerProcess;
  let client: ReturnType<typeof httpClient>;
  let routes: InputRoute[];
  let fixture: WorstCaseFixture;

  beforeAll(async () => {
    database = await freshProcessDatabase(dialect, 'worst');
    // The fixture calls the operator API with the in-process tests' token.
    server = await startProductionServer(database, { ADMIN_TOKEN: OPERATOR_TOKEN });
    client = httpClient(server.baseUrl);
    // In production /openapi.json shows the partner API only: the whole document is the operator's.
    const document = await client.send({
      method: 'GET',
      url: '/docs/operator/json',
      headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
    });
    routes = inputRoutesOf(JSON.parse(document.body));
    // The portal's own origin is https: the server sees the TLS proxy's X-Forwarded-Proto.
    fixture = await createWorstCaseFixture((request) => client.send(request), 'https');
  });
  afterAll(async () => {
    client.close();
    await server.stop();
    await database.drop();
  });

  it('when each worst case is sent 5 times, then its median answer takes under 100 ms, and every answer is small and bounded', async () => {
    // The median, not every try: the 100 ms is what the server's work costs, and one try
    // can lose tens of milliseconds to things that are not that work (a garbage collection of the
    // previous megabyte, in the server or in this test process, or the machine's other processes
    // taking the core). The median of 5 ignores two such tries, and is still over 100 ms whenever
    // the work itself is. (The tries stop once the median is known: DECIDING_TRIES.)
    const slow: string[] = [];
    const unparsed: string[] = [];
    let cases = 0;
    for (const route of routes) {
      for (const worstCase of worstCasesOfRoute(route, fixture)) {
        const times: number[] = [];
        const under = () => times.filter((ms) => ms < MEDIAN_LIMIT_MS).length;
        while (under() < DECIDING_TRIES && times.length - under() < DECIDING_TRIES) {
          const answer = await client.send(worstCase);
          expectBoundedAnswer(worstCase, answer);
          // Each case is valid HTTP whose content is the problem: the route must be the one to refuse it.
          if (answer.body.includes(MALFORMED_HTTP)) unparsed.push(worstCase.name);
          times.push(answer.ms);
        }
        if (under() < DECIDING_TRIES && !PASSWORD_HASHING_ROUTES.has(route.key))
          slow.push(`${worstCase.name}: ${times.map((ms) => ms.toFixed(0)).join(', ')} ms`);
        cases += 1;
      }
    }
    expect(cases).toBeGreaterThan(routes.length);
    expect(unparsed).toEqual([]);
    expect(slow).toEqual([]);
  });

  it('when one client sends worst cases back to back, then every /healthz request of another client succeeds meanwhile, in time', async () => {
    const bystander = httpClient(server.baseUrl);
    const stop = new AbortController();
    const answers: TimedAnswer[] = [];
    const failures: string[] = [];
    const checks = (async () => {
      while (!stop.signal.aborted) {
        await bystander
          .send({ method: 'GET', url: '/healthz', headers: {} }, BYSTANDER_TIMEOUT_MS)
          .then((answer) => answers.push(answer))
          .catch((error: unknown) => failures.push(String(error)));
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();
    try {
      for (const route of routes) {
        for (const worstCase of worstCasesOfRoute(route, fixture)) expectBoundedAnswer(worstCase, await client.send(worstCase));
      }
    } finally {
      stop.abort();
      await checks;
      bystander.close();
    }
    expect(failures).toEqual([]);
    expect(answers.length).toBeGreaterThan(10);
    expect(answers.filter((answer) => answer.status !== 200)).toEqual([]);
    expect(median(answers.map((answer) => answer.ms))).toBeLessThan(MEDIAN_LIMIT_MS);
  });
});
