import { randomUUID } from 'node:crypto';
import { v7 } from 'uuid';

/**
 * A new row's id: a time-ordered UUID (UUIDv7, RFC 9562). Still a UUID string, opaque to partners;
 * ordered by creation time, so that inserts land on the last pages of every index keyed by id
 * instead of on random ones.
 */
export const newId = (): string => v7();

/**
 * A UUIDv7 of the millisecond `ms` (RFC 9562 §5.7: 48 bits of Unix milliseconds, version 7, then
 * random bits; the variant and 74 random bits are those of a v4 from `crypto.randomUUID`). About a
 * tenth of `newId`'s cost, for rows written by the thousand (the request log); not monotonic within a
 * millisecond, which the RFC allows. Its time is the row's, not the writer's: `firstIdAt` bounds it.
 */
export function newIdAt(ms: number): string {
  const time = ms.toString(16).padStart(12, '0');
  return `${time.slice(0, 8)}-${time.slice(8, 12)}-7${randomUUID().slice(15)}`;
}

/** The smallest UUIDv7 text of the millisecond `ms`: `id < firstIdAt(ms)` holds exactly for the v7 ids of earlier milliseconds. */
export function firstIdAt(ms: number): string {
  const time = ms.toString(16).padStart(12, '0');
  return `${time.slice(0, 8)}-${time.slice(8, 12)}-0000-0000-000000000000`;
}
