import type { RegisteredRoute } from '../../src/http/routes-index.js';

/**
 * The text fields of a route, read from its schemas: every string (a `type: 'string'`, or an
 * `anyOf` of strings such as an enum of literals) among its path parameters, its query string and
 * its body, nested ones included, and the keys of records (`state_prices: {"AK": 58.99}`). A field
 * added to a schema is found here without anyone listing it.
 */

/** Where in the request a field is. */
export type RequestPart = 'params' | 'querystring' | 'body';

/** Every element of an array (one field per element of the base request, or the first one). */
export const EACH_ITEM = Symbol('each item');
/** The value of a record's first entry (`state_prices.AK`). */
export const EACH_ENTRY = Symbol('each entry');
/** The key of a record's first entry (`AK` in `state_prices`): always the last segment. */
export const ENTRY_KEY = Symbol('entry key');
export type FieldSegment = string | typeof EACH_ITEM | typeof EACH_ENTRY | typeof ENTRY_KEY;

export interface TextField {
  part: RequestPart;
  path: FieldSegment[];
}

/** The areas the fuzz reaches: the partner's, the operator's and the partner portal's routes. */
const API_PREFIXES = ['/api/external/', '/api/admin/', '/api/portal/'];

export const isApiRoute = (route: RegisteredRoute): boolean =>
  route.method !== 'HEAD' && API_PREFIXES.some((prefix) => route.url.startsWith(prefix));

/** `POST /api/external/patient`: how bases are keyed and targets named. */
export const routeKey = (route: { method: string; url: string }): string => `${route.method} ${route.url}`;

export function textFieldsOf(route: RegisteredRoute): TextField[] {
  const schema = (route.schema ?? {}) as Record<RequestPart, unknown>;
  return (['params', 'querystring', 'body'] as const).flatMap((part) =>
    stringPaths(schema[part], []).map((path) => ({ part, path })),
  );
}

type SchemaNode = Record<string, unknown>;

function stringPaths(schema: unknown, at: FieldSegment[]): FieldSegment[][] {
  if (schema === null || typeof schema !== 'object') return [];
  const node = schema as SchemaNode;
  if (isString(node)) return [at];
  const found: FieldSegment[][] = [];
  for (const [name, child] of Object.entries((node.properties ?? {}) as Record<string, unknown>)) {
    found.push(...stringPaths(child, [...at, name]));
  }
  if (node.items !== undefined) found.push(...stringPaths(node.items, [...at, EACH_ITEM]));
  const entries = [
    ...Object.values((node.patternProperties ?? {}) as Record<string, unknown>),
    ...(typeof node.additionalProperties === 'object' ? [node.additionalProperties] : []),
  ];
  if (entries.length > 0) {
    // A record's keys are text the client chooses, whatever its values are.
    found.push([...at, ENTRY_KEY]);
    for (const entry of entries) found.push(...stringPaths(entry, [...at, EACH_ENTRY]));
  }
  return found;
}

function isString(node: SchemaNode): boolean {
  const type = node.type;
  if (type === 'string' || (Array.isArray(type) && type.includes('string'))) return true;
  const anyOf = node.anyOf;
  return Array.isArray(anyOf) && anyOf.length > 0 && anyOf.every((branch) => isString(branch as SchemaNode));
}
