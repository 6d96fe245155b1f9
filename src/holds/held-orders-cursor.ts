import { isStoredPosition, type PagePosition } from '../db/keyset-page.js';
import { fieldError } from '../errors.js';
import type { OrderTable } from '../orders/order.tables.js';
import { decodeOpaqueCursor, encodeOpaqueCursor } from '../shared/opaque-cursor.js';

/* The position in the list of a clinic's orders on hold (held-orders.repository.ts), and its opaque cursor. */

/** Which part of the list a row is in: the partner's to answer, or the pharmacy's to act on. */
export type HoldPart = 'partner' | 'pharmacy';

/** The last row a page showed: its part, when its hold began and its id. Opaque to clients. */
export interface HoldPosition {
  part: HoldPart;
  at: PagePosition;
}

const PART_CODES = { partner: 'a', pharmacy: 'b' } as const;

export function encodeHoldCursor(position: HoldPosition): string {
  return encodeOpaqueCursor([PART_CODES[position.part], position.at.createdAt, position.at.id]);
}

/** The position a cursor of this list stands for; anything else is a 400 on `cursor`. */
export function decodeHoldCursor(cursor: string): HoldPosition {
  const value = decodeOpaqueCursor(cursor);
  if (value?.length === 3 && (value[0] === 'a' || value[0] === 'b') && isStoredPosition(value[1], value[2])) {
    return { part: value[0] === 'a' ? 'partner' : 'pharmacy', at: { createdAt: value[1] as string, id: value[2] as string } };
  }
  throw fieldError('cursor', 'is not a cursor this API returned (pass next_cursor from the previous page)');
}

/** The part of a held order: anything not waiting on the partner is the pharmacy's. */
export const partOf = (order: Pick<OrderTable, 'hold_waiting_on'>): HoldPart =>
  order.hold_waiting_on === 'partner' ? 'partner' : 'pharmacy';
