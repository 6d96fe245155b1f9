import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storedInstant } from '../../src/shared/instants.js';
import { createOrderSetup, type OrderSetup } from '../helpers/factories.js';
import { portalRequest, portalSignIn } from '../helpers/portal.js';
import { TestApp, type Reply } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';

/**
 * Date-times the `date-time` format allows and no `Date` reads (the leap second 23:59:60), or whose
 * instant is past year 9999 (an offset pushes 9999-12-31 over): a filter or an expiry holding one
 * is refused with a 400 naming it. The request log's and the portal's delivery filters answered
 * these with a 500 (`toISOString` of an invalid date), or compared the year 10000 as text.
 */

const LEAP_SECOND = '2026-12-31T23:59:60Z';
const PAST_9999 = '9999-12-31T23:59:59-01:00';

describe('a date-time as timestamps are stored', () => {
  it('when a date-time has an offset or fewer digits of seconds, then it is stored as UTC with milliseconds', () => {
    expect(storedInstant('2026-11-26T13:00:00+01:00', 'since')).toBe('2026-11-26T12:00:00.000Z');
    expect(storedInstant('0000-01-01T00:00:00Z', 'since')).toBe('0000-01-01T00:00:00.000Z');
    expect(storedInstant('9999-12-31T23:59:59.5Z', 'since')).toBe('9999-12-31T23:59:59.500Z');
  });

  it.each([
    ['a leap second', LEAP_SECOND],
    ['an instant past year 9999', PAST_9999],
  ])('when a date-time is %s, then 400 names the field', (_name, value) => {
    expect(() => storedInstant(value, 'until')).toThrow(
      expect.objectContaining({ statusCode: 400, details: { until: 'must be an ISO 8601 date-time' } }),
    );
  });
});

describe.each(DIALECTS)('date-times no Date reads, on %s', (dialect) => {
  let t: TestApp;
  let setup: OrderSetup;
  let portal: Record<string, string>;

  beforeAll(async () => {
    t = await TestApp.start({ dialect });
    setup = await createOrderSetup(t);
    portal = (await portalSignIn(t, setup.clinic.clinicId, 'developer')).headers;
  });
  afterAll(async () => t.close());

  const expectNamed = (reply: Reply, field: string) => {
    expect(reply.status, JSON.stringify(reply.body)).toBe(400);
    expect(reply.body.error.details).toEqual({ [field]: 'must be an ISO 8601 date-time' });
  };

  describe.each([
    ['a leap second', LEAP_SECOND],
    ['an instant past year 9999', PAST_9999],
  ])('%s', (_name, value) => {
    it.each(['since', 'until'])('when the portal\u2019s deliveries are filtered by %s, then 400 names it', async (field) => {
      expectNamed(await portalRequest(t, portal, 'GET', `/api/portal/deliveries?${field}=${encodeURIComponent(value)}`), field);
    });

    it.each(['since', 'until'])('when the portal\u2019s request log is filtered by %s, then 400 names it', async (field) => {
      expectNamed(await portalRequest(t, portal, 'GET', `/api/portal/requests?${field}=${encodeURIComponent(value)}`), field);
    });

    it.each(['since', 'until'])('when the partner\u2019s request log is filtered by %s, then 400 names it', async (field) => {
      const reply = await t.partner(setup.clinic.apiKey).get(`/api/external/requests?${field}=${encodeURIComponent(value)}`);
      expectNamed(reply, field);
    });

    it.each(['from', 'to'])('when the audit trail is filtered by %s, then 400 names it', async (field) => {
      expectNamed(await t.operator.get(`/api/admin/audit-events?${field}=${encodeURIComponent(value)}`), field);
    });

    it('when a portal key is created to expire then, then 400 names expires_at', async () => {
      expectNamed(await portalRequest(t, portal, 'POST', '/api/portal/keys', { expires_at: value }), 'expires_at');
    });
  });
});
