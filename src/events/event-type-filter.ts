import { fieldError } from '../errors.js';
import { EVENT_TYPES } from './event-types.js';

/** At most this many names in an `event_types` list (there are fewer types; a bound on the body). */
export const MAX_EVENT_TYPES = 50;

/** The valid names, as an error lists them: read from EVENT_TYPES at each call, never copied. */
export const validEventTypes = (): string => EVENT_TYPES.join(', ');

/**
 * An endpoint's `event_types` as given (issue 31, item 6; docs/webhooks.md#choosing-event-types):
 * undefined (not given) and null (every type, including types added later) pass through; a list is
 * checked against EVENT_TYPES (an unknown name: 400 naming `field`, listing the valid ones) and its
 * duplicates dropped, keeping the first-seen order. An empty list is refused: null means every type.
 */
export function normalizeEventTypes(
  given: readonly string[] | null | undefined,
  field = 'event_types',
): string[] | null | undefined {
  if (given === undefined || given === null) return given;
  if (given.length === 0) {
    throw fieldError(field, 'must name at least one event type; use null for every type');
  }
  const known = new Set<string>(EVENT_TYPES);
  const unknown = given.filter((name) => !known.has(name));
  if (unknown.length > 0) {
    throw fieldError(field, `has unknown event types (${[...new Set(unknown)].join(', ')}); valid: ${validEventTypes()}`);
  }
  return [...new Set(given)];
}

/** The stored form of a normalized list: its JSON, or null for every type. */
export const storedEventTypes = (types: readonly string[] | null): string | null =>
  types === null ? null : JSON.stringify(types);

/** The list an endpoint shows, from its stored column (null: every type). */
export const eventTypesOf = (stored: string | null): string[] | null =>
  stored === null ? null : (JSON.parse(stored) as string[]);

/**
 * Whether an endpoint with `stored` types receives events of a type: a test for the fan-out, built
 * once per endpoint and batch (its JSON parsed once). Null receives every type.
 */
export function eventTypeTest(stored: string | null): (type: string) => boolean {
  if (stored === null) return () => true;
  const types = new Set(eventTypesOf(stored));
  return (type) => types.has(type);
}
