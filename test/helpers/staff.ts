import { randomUUID } from 'node:crypto';
import type { StaffRole } from '../../src/staff/staff.tables.js';
import type { Reply, TestApp } from './test-app.js';

/** The console's origin in the in-process tests: a session's changes must carry it (http/operator-guard.ts). */
export const CONSOLE_HOST = 'console.example';
const ORIGIN = `http://${CONSOLE_HOST}`;
const PASSWORD = 'correct horse battery staple';

/** A staff member signed in to the console: their id and name, and calls made with their session. */
export interface SignedInStaff {
  readonly staffId: string;
  readonly name: string;
  readonly role: StaffRole;
  get(url: string): Promise<Reply>;
  post(url: string, body: unknown): Promise<Reply>;
}

/** Creates a staff account of `role` (with the operator token) and signs it in, as the console does. */
export async function createSignedInStaff(t: TestApp, role: StaffRole, name: string): Promise<SignedInStaff> {
  const email = `staff-${randomUUID()}@pharmacy.example`;
  const created = await t.operator.post('/api/admin/staff', { email, name, role, password: PASSWORD });
  if (created.status !== 200) throw new Error(`create-staff answered ${created.status}: ${JSON.stringify(created.body)}`);
  const headers = { host: CONSOLE_HOST, origin: ORIGIN };
  const signedIn = await t.request('POST', '/api/admin/session', {
    headers: { ...headers, 'content-type': 'application/json' },
    body: { email, password: PASSWORD },
  });
  if (signedIn.status !== 200) throw new Error(`sign-in answered ${signedIn.status}: ${JSON.stringify(signedIn.body)}`);
  const cookie = String(signedIn.headers['set-cookie']).split(';')[0] ?? '';
  return {
    staffId: (created.body as { data: { staff_id: string } }).data.staff_id,
    name,
    role,
    get: (url) => t.request('GET', url, { headers: { ...headers, cookie } }),
    post: (url, body) => t.request('POST', url, { headers: { ...headers, cookie, 'content-type': 'application/json' }, body }),
  };
}
