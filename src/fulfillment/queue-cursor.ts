import { isStoredPosition, type PagePosition } from '../db/keyset-page.js';
import { fieldError } from '../errors.js';
import { decodeOpaqueCursor, encodeOpaqueCursor } from '../shared/opaque-cursor.js';

/**
 * The cursor of the queue's default order (`sort=waiting`): the waiting orders oldest first, then
 * the finished ones newest first. It names the part the last row shown was in and that row's
 * position, so that the next page continues in the right part and direction. Opaque to clients.
 */
export interface QueuePosition {
  part: 'waiting' | 'finished';
  at: PagePosition;
}

const PART_CODES = { waiting: 'w', finished: 'f' } as const;

export function encodeQueueCursor(position: QueuePosition): string {
  return encodeOpaqueCursor([PART_CODES[position.part], position.at.createdAt, position.at.id]);
}

/** The position a cursor of this order stands for; anything else (a cursor of `sort=newest` included) is a 400 on `cursor`. */
export function decodeQueueCursor(cursor: string): QueuePosition {
  const value = decodeOpaqueCursor(cursor);
  if (value?.length === 3 && (value[0] === 'w' || value[0] === 'f') && isStoredPosition(value[1], value[2])) {
    return { part: value[0] === 'w' ? 'waiting' : 'finished', at: { createdAt: value[1] as string, id: value[2] as string } };
  }
  throw fieldError('cursor', 'is not a cursor this API returned (pass next_cursor from the previous page)');
}
