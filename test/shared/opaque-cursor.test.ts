import { describe, expect, it } from 'vitest';
import { decodeOpaqueCursor, encodeOpaqueCursor } from '../../src/shared/opaque-cursor.js';
import { decodeCursor, encodeCursor } from '../../src/db/keyset-page.js';
import { decodeQueueCursor, encodeQueueCursor } from '../../src/fulfillment/queue-cursor.js';
import { decodeHoldCursor, encodeHoldCursor } from '../../src/holds/held-orders-cursor.js';
import { decodeEventCursor, encodeEventCursor } from '../../src/events/event-log.service.js';

const AT = { createdAt: '2030-01-08T10:00:00.000Z', id: '0190f5c0-0000-7000-8000-000000000001' };
const CLINIC = '0190f5c0-0000-7000-8000-0000000000c1';

describe('the cursors’ encoding', () => {
  it('when values are encoded, then the cursor is their JSON array in base64url, and it decodes to them', () => {
    const cursor = encodeOpaqueCursor(['w', AT.createdAt, AT.id]);
    expect(Buffer.from(cursor, 'base64url').toString('utf8')).toBe(`["w","${AT.createdAt}","${AT.id}"]`);
    expect(decodeOpaqueCursor(cursor)).toEqual(['w', AT.createdAt, AT.id]);
  });

  it.each([
    ['not base64url JSON', 'not a cursor'],
    ['JSON that is not an array', Buffer.from('{"a":1}').toString('base64url')],
    ['nothing', ''],
  ])('when a cursor is %s, then it holds no values', (_, cursor) => {
    expect(decodeOpaqueCursor(cursor)).toBeNull();
  });

  it('when each list encodes its position, then its wire form is its own JSON array, unchanged', () => {
    const wire = (cursor: string): unknown => JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    expect(wire(encodeCursor(AT))).toEqual([AT.createdAt, AT.id]);
    expect(wire(encodeQueueCursor({ part: 'finished', at: AT }))).toEqual(['f', AT.createdAt, AT.id]);
    expect(wire(encodeHoldCursor({ part: 'partner', at: AT }))).toEqual(['a', AT.createdAt, AT.id]);
    expect(wire(encodeEventCursor(CLINIC, AT))).toEqual(['ev', CLINIC, AT.createdAt, AT.id]);
  });

  it('when a list’s cursor is decoded by another list, then it is refused', () => {
    expect(decodeCursor(encodeCursor(AT))).toEqual(AT);
    expect(decodeQueueCursor(encodeQueueCursor({ part: 'waiting', at: AT }))).toEqual({ part: 'waiting', at: AT });
    expect(decodeHoldCursor(encodeHoldCursor({ part: 'pharmacy', at: AT }))).toEqual({ part: 'pharmacy', at: AT });
    expect(decodeEventCursor(CLINIC, encodeEventCursor(CLINIC, AT))).toEqual(AT);
    expect(() => decodeQueueCursor(encodeCursor(AT))).toThrow();
    expect(() => decodeHoldCursor(encodeQueueCursor({ part: 'waiting', at: AT }))).toThrow();
    expect(() => decodeCursor(encodeHoldCursor({ part: 'partner', at: AT }))).toThrow();
    expect(() => decodeEventCursor(CLINIC, encodeCursor(AT))).toThrow();
  });
});
