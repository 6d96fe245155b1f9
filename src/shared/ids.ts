import { v7 } from 'uuid';

/**
 * A new row's id: a time-ordered UUID (UUIDv7, RFC 9562). Still a UUID string, opaque to partners;
 * ordered by creation time, so that inserts land on the last pages of every index keyed by id
 * instead of on random ones.
 */
export const newId = (): string => v7();
