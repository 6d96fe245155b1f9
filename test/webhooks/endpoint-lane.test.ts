import { describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { dataKeyId } from '../../src/secrets/data-key.js';
import { Keyring } from '../../src/secrets/keyring.js';
import type { ClaimedDelivery, LaneEndpoint } from '../../src/delivery/types.js';
import { EndpointLane, laneCapacity } from '../../src/delivery/endpoint-lane.js';
import { sealEndpointSecret, secretsAt } from '../../src/delivery/endpoint-secret.js';

const key = randomBytes(32);
const keyring = new Keyring({ id: dataKeyId(key), key });
const OLD = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const NEW = 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD';
const endpoint = (limits: Partial<LaneEndpoint> = {}): LaneEndpoint => ({
  id: 'e1',
  url: 'https://partner.example/hooks',
  ...sealEndpointSecret(keyring, 'e1', OLD),
  previous_secret: null,
  previous_secret_key_id: null,
  previous_secret_expires_at: null,
  status: 'active',
  deleted_at: null,
  max_in_flight: 2,
  max_per_second: null,
  failing_since: null,
  ...limits,
});
const delivery = (n: number, startBy = Number.MAX_SAFE_INTEGER): ClaimedDelivery => ({
  id: `d${n}`,
  event_id: `ev${n}`,
  endpoint_id: 'e1',
  body: '{}',
  attempt_count: 0,
  created_at: '2030-01-01T00:00:00.000Z',
  token: 't',
  startBy,
});

/** The lane is pure (no I/O, no clock of its own): each rule is checked at given moments. */
describe('an endpoint lane', () => {
  it('when max_in_flight attempts are under way, then no other starts until one ends', () => {
    const lane = new EndpointLane(endpoint(), keyring, 0, Infinity);
    lane.receive([delivery(1), delivery(2), delivery(3)], 3);
    expect([lane.start(0)?.id, lane.start(0)?.id]).toEqual(['d1', 'd2']);
    expect(lane.canStart(0)).toBe(false);
    lane.inFlight -= 1;
    expect(lane.canStart(0)).toBe(true);
  });

  it('when a taken delivery was held past the moment it must start by, then it is dropped, not sent', () => {
    const lane = new EndpointLane(endpoint(), keyring, 0, Infinity);
    lane.receive([delivery(1, 1000), delivery(2, 5000)], 2);
    expect(lane.canStart(1001)).toBe(true);
    expect(lane.start(1001)?.id).toBe('d2');
    expect(lane.buffer).toHaveLength(0);
  });

  it('when the endpoint lease the last look renewed has ended, then nothing starts until a look renews it', () => {
    const lane = new EndpointLane(endpoint(), keyring, 0, 5000);
    lane.receive([delivery(1), delivery(2)], 2);
    expect(lane.canStart(4999)).toBe(true);
    expect(lane.canStart(5000)).toBe(false);
    expect(lane.heldBackFor(5000)).toBe(Infinity);
    lane.heldUntil = 10_000;
    expect(lane.start(5000)?.id).toBe('d1');
  });

  it('when the endpoint allows 2 attempts a second, then a third waits until the first is a second old', () => {
    const lane = new EndpointLane(endpoint({ max_in_flight: 10, max_per_second: 2 }), keyring, 0, Infinity);
    lane.receive([delivery(1), delivery(2), delivery(3)], 3);
    lane.start(0);
    lane.start(400);
    expect(lane.canStart(999)).toBe(false);
    expect(lane.heldBackFor(999)).toBe(1);
    expect(lane.canStart(1000)).toBe(true);
  });

  it('when the receiver paused the endpoint, then nothing starts and the buffer is handed back at the next look', () => {
    const lane = new EndpointLane(endpoint(), keyring, 0, Infinity);
    lane.receive([delivery(1), delivery(2)], 2);
    lane.pausedUntil = 20_000;
    expect(lane.canStart(0)).toBe(false);
    expect(lane.request(false)).toEqual({ endpointId: 'e1', want: 0, handBack: ['d1', 'd2'], release: 'idle', healthy: true });
  });

  it('when the limits are set, then a lane holds eight times max_in_flight, and at most two seconds of its per-second limit', () => {
    expect(laneCapacity({ max_in_flight: 10, max_per_second: null })).toBe(80);
    expect(laneCapacity({ max_in_flight: 10, max_per_second: 3 })).toBe(6);
    expect(laneCapacity({ max_in_flight: 1, max_per_second: null })).toBe(8);
  });

  it('when the stored secret is rotated while the lane is owned, then the lane signs with the new and the previous secret until the window ends, then with the new only', () => {
    const secretOf = (lane: EndpointLane, now: number) => {
      if (!('value' in lane.secret)) throw new Error(lane.secret.unavailable);
      return secretsAt(lane.secret.value, now);
    };
    const lane = new EndpointLane(endpoint(), keyring, 0, Infinity);
    expect(secretOf(lane, 0)).toEqual([OLD]);
    const rotated = endpoint({
      ...sealEndpointSecret(keyring, 'e1', NEW),
      previous_secret: lane.endpoint.secret,
      previous_secret_key_id: lane.endpoint.secret_key_id,
      previous_secret_expires_at: new Date(10_000).toISOString(),
    });
    lane.update(rotated, 1000);
    expect(secretOf(lane, 9_999)).toEqual([NEW, OLD]);
    expect(secretOf(lane, 10_000)).toEqual([NEW]);
  });
});
