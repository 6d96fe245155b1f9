import { STATES_AND_DC } from '../../src/shipping/licensed-states.js';
import { FORWARDED_HTTPS, type ServerProcess } from '../helpers/server-process.js';

/** Shared by the suites that run several server processes: operator and partner calls over HTTP. */

/**
 * REDIS_URL of the machine's shared Redis, in a database of these suites (7). It is never flushed:
 * every test counts on keys of its own (a new clinic key each time).
 */
export function sharedRedisUrl(base: string | null): string {
  const url = new URL(base ?? 'redis://127.0.0.1:6379');
  url.pathname = '/7';
  return url.toString();
}

export const OPERATOR_TOKEN = 'instances-test-operator-token-0123456789';

export interface Answer {
  status: number;
  body: any;
  headers: Headers;
}

export async function call(
  server: Pick<ServerProcess, 'baseUrl'>,
  method: string,
  path: string,
  options: { apiKey?: string; operator?: boolean; body?: unknown } = {},
): Promise<Answer> {
  // The servers run production behind a trusted local "proxy" (PRODUCTION_BEHIND_PROXY) that says it took HTTPS.
  const headers: Record<string, string> = { ...FORWARDED_HTTPS };
  if (options.apiKey) headers['x-api-key'] = options.apiKey;
  if (options.operator) headers.authorization = `Bearer ${OPERATOR_TOKEN}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${server.baseUrl}${path}`, {
    method,
    headers,
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, body: text.startsWith('{') ? JSON.parse(text) : text, headers: response.headers };
}

/** A new clinic and a key of the server's environment, through the operator API of `server`. */
export async function createPartner(
  server: Pick<ServerProcess, 'baseUrl'>,
  name = 'Instance Clinic',
): Promise<{ clinicId: string; apiKey: string; apiKeyId: string }> {
  const clinic = await call(server, 'POST', '/api/admin/clinics', { operator: true, body: { name } });
  if (clinic.status !== 200) throw new Error(`clinic not created: ${JSON.stringify(clinic.body)}`);
  const clinicId: string = clinic.body.data.clinic_id;
  const key = await call(server, 'POST', `/api/admin/clinics/${clinicId}/api-keys`, {
    operator: true,
    body: {},
  });
  if (key.status !== 200) throw new Error(`key not issued: ${JSON.stringify(key.body)}`);
  // A production server ships nowhere until the operator says where (docs/shipping.md#licensed-states).
  const licensed = await call(server, 'PUT', '/api/admin/licensed-states', { operator: true, body: { states: STATES_AND_DC } });
  if (licensed.status !== 200) throw new Error(`licensed states not set: ${JSON.stringify(licensed.body)}`);
  return { clinicId, apiKey: key.body.data.api_key, apiKeyId: key.body.data.api_key_id };
}

/** The JSON log lines a child printed on stdout (the banner's plain lines are skipped). */
export function logLines(server: Pick<ServerProcess, 'stdout'>): { level: number; msg: string }[] {
  return server
    .stdout()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level: number; msg: string });
}
