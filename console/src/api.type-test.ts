/**
 * Compile-time tests of `api()` (api.ts, api-types.ts), checked by `npm run typecheck` and never run
 * nor bundled: each call marked `@ts-expect-error` must fail to compile, so that a call the server
 * does not document, or an answer read as a shape it does not have, is caught before the browser.
 */
import { api } from './api';
import type { Check, ListsAll } from './api-types';

export async function apiTypeTests(): Promise<void> {
  // @ts-expect-error: not a documented path.
  await api('GET', '/api/admin/nowhere');
  // @ts-expect-error: documented, but not for PUT.
  await api('PUT', '/api/admin/clinics', { body: { name: 'Clinic' } });
  // @ts-expect-error: the path's {clinicId} is not given.
  await api('GET', '/api/admin/clinics/{clinicId}');
  // @ts-expect-error: a path parameter the path does not have.
  await api('GET', '/api/admin/clinics/{clinicId}', { path: { clinicId: 'c', id: 'x' } });
  // @ts-expect-error: a body field the API does not take.
  await api('POST', '/api/admin/clinics', { body: { name: 'Clinic', shipping: 'free' } });
  // @ts-expect-error: the body the API requires is missing.
  await api('POST', '/api/admin/clinics');
  // @ts-expect-error: a query name the API does not take.
  await api('GET', '/api/admin/webhook-deliveries', { query: { state: 'failed' } });

  const clinic = await api('GET', '/api/admin/clinics/{clinicId}', { path: { clinicId: 'c' } });
  // @ts-expect-error: the answer's free_shipping is a boolean.
  const wrong: string = clinic.free_shipping;
  const right: boolean = clinic.free_shipping;
  const session = await api('GET', '/api/admin/session');
  // @ts-expect-error: a role the API does not have.
  session.role = 'owner';
  return Promise.resolve([wrong, right]).then(() => undefined);
}

// @ts-expect-error: a list that leaves out a value of the API's enum does not compile.
export type MissingOne = Check<ListsAll<'a' | 'b', readonly ['a']>>;
export type ListsBoth = Check<ListsAll<'a' | 'b', readonly ['b', 'a']>>;
