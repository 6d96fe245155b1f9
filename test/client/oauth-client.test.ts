import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPartnerClient } from '../../clients/typescript/src/index.js';
import { TestApp, type TestClinic } from '../helpers/test-app.js';
import { createClient, FULL, type TestOAuthClient } from '../oauth/support.js';

/**
 * The typed client with an OAuth client instead of a key (issue 20, item 3), over HTTP against a
 * listening server: it gets a token from POST /oauth/token, reuses it, and after a 401 asks again.
 */
describe('the typed client with OAuth client credentials', () => {
  let t: TestApp;
  let clinic: TestClinic;
  let client: TestOAuthClient;
  let baseUrl: string;
  /** The paths the client asked, in order. */
  const asked: string[] = [];
  const countingFetch = (request: Request): Promise<Response> => {
    asked.push(new URL(request.url).pathname);
    return fetch(request);
  };

  beforeAll(async () => {
    t = await TestApp.start({ dialect: 'sqlite' });
    clinic = await t.createClinic();
    client = await createClient(t, clinic.clinicId, { scopes: FULL });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => t.close());

  it('when two calls are made, then one token is asked for and both calls carry it', async () => {
    asked.length = 0;
    const partner = createPartnerClient({
      baseUrl,
      oauth: { clientId: client.clientId, clientSecret: client.secret },
      fetch: countingFetch,
    });
    const first = await partner.GET('/api/external/carriers');
    const second = await partner.GET('/api/external/carriers');
    expect(first.response.status).toBe(200);
    expect(second.response.status).toBe(200);
    expect(asked).toEqual(['/oauth/token', '/api/external/carriers', '/api/external/carriers']);
  });

  it('when a narrower scope is asked, then the token has only it: a write is refused with the scope named', async () => {
    const partner = createPartnerClient({
      baseUrl,
      oauth: { clientId: client.clientId, clientSecret: client.secret, scope: 'carriers:read' },
    });
    expect((await partner.GET('/api/external/carriers')).response.status).toBe(200);
    const { error, response } = await partner.POST('/api/external/practitioner', {
      body: {
        first_name: 'Ada',
        last_name: 'Lovelace',
        email: 'ada.lovelace@example.com',
        npi: '1234567893',
        is_veterinarian: false,
        assigned_clinic: clinic.clinicId,
        address_line_1: '1 Main St',
        city: 'Austin',
        state_code: 'TX',
        zip_code: '78701',
      },
    });
    expect(response.status).toBe(403);
    expect(error?.error.message).toBe('Forbidden: this access token lacks the scope practitioners:write');
  });

  it('when a call is refused with 401, then the next call asks for a new token', async () => {
    let refuseNext = false;
    const refusingOnce = (request: Request): Promise<Response> => {
      if (refuseNext && new URL(request.url).pathname !== '/oauth/token') {
        refuseNext = false;
        asked.push('refused');
        return Promise.resolve(Response.json({ success: false }, { status: 401 }));
      }
      return countingFetch(request);
    };
    const partner = createPartnerClient({
      baseUrl,
      oauth: { clientId: client.clientId, clientSecret: client.secret },
      fetch: refusingOnce,
    });
    asked.length = 0;
    await partner.GET('/api/external/carriers');
    // The token is refused once (as after a server-side rotation of the signing key).
    refuseNext = true;
    await partner.GET('/api/external/carriers');
    await partner.GET('/api/external/carriers');
    expect(asked).toEqual(['/oauth/token', '/api/external/carriers', 'refused', '/oauth/token', '/api/external/carriers']);
  });

  it('when neither a key nor an OAuth client is given, or both, then the client is not made', () => {
    expect(() => createPartnerClient({ baseUrl })).toThrow(/either apiKey or oauth/);
    expect(() => createPartnerClient({ baseUrl, apiKey: 'dev_x', oauth: { clientId: 'a', clientSecret: 'b' } })).toThrow(
      /either apiKey or oauth/,
    );
  });
});
