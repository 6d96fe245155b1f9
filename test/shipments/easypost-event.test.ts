import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AppError } from '../../src/errors.js';
import {
  cleanText,
  deliveryDateOf,
  EASYPOST_STATUS_MAP,
  instantOf,
  locationOf,
  mapEasyPostStatus,
  MAX_DESCRIPTION_LENGTH,
  MAX_TRACKING_DETAILS,
  readEasyPostEvent,
} from '../../src/shipments/easypost-event.js';
import { easyPostSignature, isEasyPostSignature } from '../../src/shipments/easypost-signature.js';
import { trackerUpdated } from './easypost-support.js';

const refusal = (body: unknown): AppError => {
  try {
    readEasyPostEvent(body);
  } catch (error) {
    return error as AppError;
  }
  throw new Error('not refused');
};

describe('EasyPost signature', () => {
  it('when a body is signed as EasyPost signs it, then the header is hmac-sha256-hex= and the HMAC-SHA256 hex of the raw body', () => {
    const body = Buffer.from('{"id":"evt_1"}');
    const hex = createHmac('sha256', 'a-shared-secret').update(body).digest('hex');
    expect(easyPostSignature(body, 'a-shared-secret')).toBe(`hmac-sha256-hex=${hex}`);
    expect(isEasyPostSignature(body, `hmac-sha256-hex=${hex}`, 'a-shared-secret')).toBe(true);
    expect(isEasyPostSignature(body, `HMAC-SHA256-HEX=${hex.toUpperCase()}`, 'a-shared-secret')).toBe(true);
  });

  it('when the secret has an accented letter, then it is NFKD-normalized first (composed or decomposed, the same key)', () => {
    const body = Buffer.from('{"description":"tracker.updated"}');
    // The key EasyPost's libraries use: "sécret" decomposed (e + U+0301), as UTF-8.
    const hex = createHmac('sha256', Buffer.from('se\u0301cret', 'utf8')).update(body).digest('hex');
    expect(isEasyPostSignature(body, `hmac-sha256-hex=${hex}`, 's\u00e9cret')).toBe(true);
    expect(isEasyPostSignature(body, `hmac-sha256-hex=${hex}`, 'se\u0301cret')).toBe(true);
  });

  it('when the signature is missing, repeated, of another body, another secret, or not a signature, then it is refused', () => {
    const body = Buffer.from('{"id":"evt_1"}');
    const good = easyPostSignature(body, 'secret');
    expect(isEasyPostSignature(body, undefined, 'secret')).toBe(false);
    expect(isEasyPostSignature(body, [good, good], 'secret')).toBe(false);
    expect(isEasyPostSignature(Buffer.from('{"id":"evt_2"}'), good, 'secret')).toBe(false);
    expect(isEasyPostSignature(body, good, 'another secret')).toBe(false);
    expect(isEasyPostSignature(body, good.slice(0, -1), 'secret')).toBe(false);
    expect(isEasyPostSignature(body, good.replace('hmac-sha256-hex=', ''), 'secret')).toBe(false);
    expect(isEasyPostSignature(body, '', 'secret')).toBe(false);
  });
});

describe('EasyPost statuses onto ours', () => {
  it('when each EasyPost status is mapped, then it becomes the status of docs/shipping.md, and unknown none', () => {
    expect(EASYPOST_STATUS_MAP).toEqual({
      pre_transit: 'label_created',
      in_transit: 'in_transit',
      out_for_delivery: 'out_for_delivery',
      delivered: 'delivered',
      available_for_pickup: 'exception',
      return_to_sender: 'returned_to_sender',
      failure: 'exception',
      cancelled: 'exception',
      error: 'exception',
      unknown: null,
    });
    expect(mapEasyPostStatus('available_for_pickup')).toBe('exception');
    expect(mapEasyPostStatus('unknown')).toBeNull();
  });

  it('when a status is not one EasyPost documents (or an inherited name), then it is read as unknown', () => {
    expect(mapEasyPostStatus('teleported')).toBeNull();
    expect(mapEasyPostStatus('constructor')).toBeNull();
    expect(mapEasyPostStatus('__proto__')).toBeNull();
  });
});

describe('reading a tracker.updated Event', () => {
  it('when the Event is read, then its tracking code, scans (UTC, "City, ST", message) and delivery day come out', () => {
    const read = readEasyPostEvent(trackerUpdated());
    expect(read).toEqual({
      kind: 'tracker',
      eventId: 'evt_9f1c2a7b44d04ea1b3c5d6e7f8a9b0c1',
      skipped: 0,
      tracking: {
        tracking_number: '794612345678',
        estimated_delivery_date: '2030-03-05',
        events: [
          {
            status: 'label_created',
            occurred_at: '2030-03-01T15:00:00.000Z',
            location: null,
            description: 'Shipment information sent to FedEx',
          },
          {
            status: 'in_transit',
            occurred_at: '2030-03-02T14:30:00.000Z',
            location: 'MEMPHIS, TN',
            description: 'Departed FedEx location',
          },
        ],
      },
    });
  });

  it('when a scan is unknown, has no readable time or is not an object, then it is skipped and counted', () => {
    const details = [
      { status: 'unknown', message: 'Status not available', datetime: '2030-03-01T15:00:00Z' },
      { status: 'in_transit', message: 'No time', datetime: 'yesterday' },
      { status: 'in_transit', message: 'Impossible day', datetime: '2030-02-30T10:00:00Z' },
      { status: 'in_transit', message: 'No offset', datetime: '2030-03-01T10:00:00' },
      'not a detail',
      { status: 'delivered', message: 'Delivered', datetime: '2030-03-03T12:00:00Z' },
    ];
    const read = readEasyPostEvent(trackerUpdated({ tracker: { tracking_details: details } }));
    expect(read.kind === 'tracker' && read.skipped).toBe(5);
    expect(read.kind === 'tracker' && read.tracking.events.map((event) => event.status)).toEqual(['delivered']);
  });

  it('when a Tracker holds more scans than are read, then the most recent ones are read and the rest counted as skipped', () => {
    const details = Array.from({ length: MAX_TRACKING_DETAILS + 50 }, (_, i) => ({
      status: 'in_transit',
      message: `Scan ${i}`,
      datetime: new Date(Date.parse('2030-03-01T00:00:00Z') + i * 60_000).toISOString(),
    }));
    const read = readEasyPostEvent(trackerUpdated({ tracker: { tracking_details: details } }));
    if (read.kind !== 'tracker') throw new Error('not read');
    expect(read.tracking.events).toHaveLength(MAX_TRACKING_DETAILS);
    expect(read.tracking.events[0]!.description).toBe('Scan 50');
    expect(read.skipped).toBe(50);
  });

  it('when the message holds NUL, bidirectional and zero-width characters, then they are gone from the description', () => {
    const details = [
      {
        status: 'in_transit',
        message: 'Arrived\u0000 at\u202e facility\u200b\u2066 \r\nhub\u0007',
        datetime: '2030-03-02T10:00:00Z',
        tracking_location: { city: 'Mem\u202ephis\u0000', state: 'T\u200bN', country: 'US' },
      },
    ];
    const read = readEasyPostEvent(trackerUpdated({ tracker: { tracking_details: details } }));
    if (read.kind !== 'tracker') throw new Error('not read');
    expect(read.tracking.events[0]).toMatchObject({ description: 'Arrived at facility hub', location: 'Memphis, TN' });
  });

  it('when the message is longer than kept, then it is cut at the bound with an ellipsis', () => {
    const details = [{ status: 'in_transit', message: 'x'.repeat(10_000), datetime: '2030-03-02T10:00:00Z' }];
    const read = readEasyPostEvent(trackerUpdated({ tracker: { tracking_details: details } }));
    if (read.kind !== 'tracker') throw new Error('not read');
    expect(Array.from(read.tracking.events[0]!.description!)).toHaveLength(MAX_DESCRIPTION_LENGTH);
    expect(read.tracking.events[0]!.description!.endsWith('…')).toBe(true);
  });

  it('when the Event is of another description, then it is ignored, not refused', () => {
    expect(readEasyPostEvent(trackerUpdated({ event: { description: 'batch.updated' } }))).toEqual({
      kind: 'ignored',
      eventId: 'evt_9f1c2a7b44d04ea1b3c5d6e7f8a9b0c1',
      description: 'batch.updated',
    });
  });

  it.each([
    ['not an object', 'body', []],
    ['no id', 'id', { ...trackerUpdated(), id: undefined }],
    ['an id that is not an Event id', 'id', { ...trackerUpdated(), id: 'trk_123' }],
    ['no description', 'description', { ...trackerUpdated(), description: 7 }],
    ['no Tracker', 'result', { ...trackerUpdated(), result: 'nothing' }],
    ['no tracking code', 'result.tracking_code', trackerUpdated({ tracker: { tracking_code: null } })],
    ['a tracking code that is not one', 'result.tracking_code', trackerUpdated({ tracker: { tracking_code: '1Z<script>' } })],
    ['scans that are not an array', 'result.tracking_details', trackerUpdated({ tracker: { tracking_details: { a: 1 } } })],
  ])('when the body has %s, then 400 names %s', (_label, field, body) => {
    const error = refusal(body);
    expect(error.statusCode).toBe(400);
    expect(Object.keys(error.details ?? {})).toEqual([field]);
  });
});

describe('carrier text', () => {
  it('when a location is read, then it is "City, ST", the country only outside the US, and never the ZIP code', () => {
    expect(locationOf({ city: 'ORLANDO', state: 'FL', country: 'US', zip: '32809' })).toBe('ORLANDO, FL');
    expect(locationOf({ city: 'Toronto', state: 'ON', country: 'CA', zip: 'M5V' })).toBe('Toronto, ON, CA');
    expect(locationOf({ city: null, state: null, country: 'US', zip: '32837' })).toBeNull();
    expect(locationOf('Memphis')).toBeNull();
  });

  it('when text is only invisible characters, then nothing is kept', () => {
    expect(cleanText('\u200b\u202e\u0000 ', 10)).toBeNull();
    expect(cleanText('\ud800abc', 10)).toBe('abc');
  });

  it('when times and days are read, then offsets become UTC and impossible days nothing', () => {
    expect(instantOf('2030-03-02T09:30:00-05:00')).toBe('2030-03-02T14:30:00.000Z');
    expect(instantOf('2030-03-02T09:30Z')).toBe('2030-03-02T09:30:00.000Z');
    expect(instantOf(1_700_000_000)).toBeNull();
    expect(deliveryDateOf('2030-03-05T00:00:00Z')).toBe('2030-03-05');
    expect(deliveryDateOf('2030-03-05')).toBe('2030-03-05');
    expect(deliveryDateOf('2030-02-30T00:00:00Z')).toBeNull();
    expect(deliveryDateOf(null)).toBeNull();
  });

  it('when any Unicode is cleaned (lone surrogates, controls and all), then none of the dropped characters is left and the bound holds', () => {
    // eslint-disable-next-line no-control-regex
    const dropped = /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff]|\p{Cs}/u;
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), fc.integer({ min: 1, max: 50 }), (value, max) => {
        const cleaned = cleanText(value, max);
        if (cleaned === null) return;
        expect(cleaned).not.toMatch(dropped);
        expect(Array.from(cleaned).length).toBeLessThanOrEqual(max);
        expect(cleaned).toBe(cleaned.trim());
        expect(Buffer.from(cleaned, 'utf8').toString('utf8')).toBe(cleaned);
      }),
      { numRuns: 500 },
    );
  });
});
