/**
 * The encoding every cursor of the API shares: its values as a JSON array, in base64url, opaque to
 * clients. What a cursor holds and how its values are checked are its list's own (keyset-page.ts,
 * queue-cursor.ts, held-orders-cursor.ts, event-log.service.ts, fhir-search.ts); the encoding is this.
 */

/** `values` as a cursor. */
export const encodeOpaqueCursor = (values: readonly unknown[]): string =>
  Buffer.from(JSON.stringify(values), 'utf8').toString('base64url');

/** The values a cursor holds; null when it is not a JSON array in base64url (so none this API wrote). */
export function decodeOpaqueCursor(cursor: string): unknown[] | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    return Array.isArray(value) ? value : null;
  } catch {
    return null;
  }
}
