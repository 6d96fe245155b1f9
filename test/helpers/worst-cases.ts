import { BODY_LIMIT_BYTES } from '../../src/config.js';
import { MAX_JSON_ENTRIES } from '../../src/http/json-shape.js';

/**
 * Worst-case requests (issue 9, item 1: bounded work for any input): from a route's schemas (as
 * the OpenAPI document gives them) and a valid request, requests just under the body limit (or,
 * for query strings, as long as the headers allow) shaped to make the server work hard: huge arrays
 * at every array field, unknown keys by the hundred thousand in every object, nesting as deep as the
 * limit allows, the longest string in every string field, huge numbers in every number field; and
 * arrays and unknown keys as large as the JSON parser takes (src/http/json-shape.ts), for the
 * validation to face. Nothing is random: the same route and base give the same bytes.
 */

/** A JSON Schema node, as the OpenAPI document holds it. */
export type SchemaNode = Record<string, unknown>;

export interface WorstCase {
  /** `POST /api/external/medication-order medication_requests: many empty objects`. */
  name: string;
  method: string;
  url: string;
  /** The body, just under the limit; none for query-string cases. */
  payload?: string;
  /** A piece of the long input that the answer must not repeat (when the input has one). */
  echo?: string;
  /**
   * Whether the case must be refused (4xx). Only unknown query parameters may be accepted: some
   * routes ignore them (docs/shipping.md). No case may get a 5xx.
   */
  refused: boolean;
}

/** A request the cases start from: a valid one, so that each case's own shape is its only problem. */
export interface BaseRequest {
  method: string;
  /** The concrete URL, with a valid query string where the route takes one. */
  url: string;
  body?: unknown;
}

/** A route as the cases see it: its body schema and its query parameters' schemas. */
export interface RouteInput {
  /** `POST /api/external/patient`: each case's name starts with it. */
  key: string;
  body?: SchemaNode;
  query?: Record<string, SchemaNode>;
}

/** Bytes left free under the body limit: every case is just under it. */
const BODY_MARGIN = 64;
/**
 * The longest URL a case sends: Node refuses request heads over 16 KiB (431), and the request line
 * shares them with the headers.
 */
const URL_LIMIT = 15_000;

type Segment = string | number;
type Kind = 'string' | 'number' | 'boolean' | 'array' | 'object';

interface Site {
  path: Segment[];
  kinds: Set<Kind>;
  schema: SchemaNode;
}

/**
 * Every case for one route, its body's and its query string's, one at a time (they are a megabyte
 * each: a caller that sends each before taking the next holds one at a time).
 */
export function* worstCasesOf(route: RouteInput, base: BaseRequest): Generator<WorstCase> {
  if (route.body) yield* bodyCases(route.key, route.body, base);
  if (route.query) yield* queryCases(route.key, route.query, base);
}

// Fillers: plain ASCII (one byte a character), each easy to look for in an answer.
const LONG_CHAR = 'w';
const KEY_CHAR = 'k';
const DIGIT = '7';
const echoOf = (char: string) => char.repeat(100);

/** `make(0)`, `make(1)`, … (at most `count` of them) joined by `separator` while the result fits in `budget` characters. */
function fill(budget: number, make: (i: number) => string, separator = ',', count = Infinity): string {
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; i < count; i++) {
    const next = make(i);
    const added = next.length + (i === 0 ? 0 : separator.length);
    if (size + added > budget) break;
    parts.push(next);
    size += added;
  }
  return parts.join(separator);
}

// The value or member a case replaces in the base body's JSON text.
const HOLE = '__worst_case_hole__';
const HOLE_VALUE = JSON.stringify(HOLE);
const HOLE_MEMBER = `${HOLE_VALUE}:0`;

interface Shape {
  name: string;
  /** The JSON text that fills `budget` characters. */
  make(budget: number): string;
  echo?: string;
}

const deepArrays: Shape = {
  name: 'arrays nested as deep as the limit allows',
  make: (budget) => `${'['.repeat(Math.floor(budget / 2))}${']'.repeat(Math.floor(budget / 2))}`,
};
const deepObjects: Shape = {
  name: 'objects nested as deep as the limit allows',
  make: (budget) => {
    const depth = Math.floor((budget - 1) / 6);
    return `${'{"a":'.repeat(depth)}0${'}'.repeat(depth)}`;
  },
};
const longString: Shape = {
  name: 'a string as long as the limit allows',
  make: (budget) => `"${LONG_CHAR.repeat(budget - 2)}"`,
  echo: echoOf(LONG_CHAR),
};
const escapedControls: Shape = {
  name: 'a string of escaped NUL characters as long as the limit allows',
  make: (budget) => `"${'\\u0000'.repeat(Math.floor((budget - 2) / 6))}"`,
  echo: '\\u0000'.repeat(20),
};
const hugeNumber: Shape = {
  name: 'a number with as many digits as the limit allows',
  make: (budget) => DIGIT.repeat(budget),
  echo: echoOf(DIGIT),
};
const hugeNumberText: Shape = {
  name: 'a number as a string of as many digits as the limit allows',
  make: (budget) => `"${DIGIT.repeat(budget - 2)}"`,
  echo: echoOf(DIGIT),
};
const arrayOf = (name: string, item: string, count = Infinity): Shape => ({
  name,
  make: (budget) => `[${fill(budget - 2, () => item, ',', count)}]`,
});
/**
 * Entries a case may add and still be parsed (json-shape.ts), so that validation sees it: no base
 * body holds 100 entries of its own.
 */
const PARSED_ENTRIES = MAX_JSON_ENTRIES - 100;

/** Members added to an object (they replace HOLE_MEMBER). */
const unknownKeys: Shape = { name: 'many unknown keys', make: (budget) => fill(budget, (i) => `"u${i}":0`) };
const parsedUnknownKeys: Shape = {
  name: 'as many unknown keys as the parser takes',
  make: (budget) => fill(budget, (i) => `"u${i}":0`, ',', PARSED_ENTRIES),
};
const longUnknownKeys: Shape = {
  name: 'many unknown keys, each a thousand characters long',
  make: (budget) => fill(budget, (i) => `"${String(i).padStart(6, '0')}${KEY_CHAR.repeat(1000)}":0`),
  echo: echoOf(KEY_CHAR),
};
const oneHugeKey: Shape = {
  name: 'one unknown key as long as the limit allows',
  make: (budget) => `"${KEY_CHAR.repeat(budget - 4)}":0`,
  echo: echoOf(KEY_CHAR),
};
const forbiddenKeyDeepDown: Shape = {
  name: 'a constructor.prototype key at the bottom of deep objects',
  make: (budget) => {
    const depth = Math.floor((budget - 40) / 10);
    return `"x":${'{"a":'.repeat(depth)}{"constructor":{"prototype":0}}${'}'.repeat(depth)}`;
  },
};

function* bodyCases(key: string, schema: SchemaNode, base: BaseRequest): Generator<WorstCase> {
  const body = base.body ?? {};
  const bodyCase = (field: string, shape: Shape, payload: string): WorstCase => ({
    name: `${key} ${field}: ${shape.name}`,
    method: base.method,
    url: base.url,
    payload,
    refused: true,
    ...(shape.echo ? { echo: shape.echo } : {}),
  });
  /** `shape` in place of the value at `path` (or of a member added to the object there). */
  const plant = (path: Segment[], shape: Shape, member = false): WorstCase => {
    const text = JSON.stringify(setAt(body, member ? [...path, HOLE] : path, member ? 0 : HOLE));
    const hole = member ? HOLE_MEMBER : HOLE_VALUE;
    const budget = BODY_LIMIT_BYTES - BODY_MARGIN - (Buffer.byteLength(text) - hole.length);
    return bodyCase(fieldName(path), shape, text.replace(hole, shape.make(budget)));
  };

  const sites = sitesOf(schema, []);
  const isContainer = (site: Site) => site.kinds.has('array') || site.kinds.has('object');
  // Deep nesting costs the same in every scalar field (the parser builds it, the schema refuses
  // its type at once): one scalar field stands for them all; every array and object gets its own.
  const scalar = sites.find((site) => site.path.length > 0 && !isContainer(site));
  for (const site of sites) {
    const { path, kinds } = site;
    if (path.length > 0 && (isContainer(site) || site === scalar)) {
      yield plant(path, deepArrays);
      yield plant(path, deepObjects);
    }
    if (kinds.has('string')) yield plant(path, longString);
    if (kinds.has('number')) {
      yield plant(path, hugeNumber);
      yield plant(path, hugeNumberText);
    }
    if (kinds.has('array')) {
      const item = getAt(body, [...path, 0]) ?? sampleOf(site.schema.items);
      const itemText = JSON.stringify(item);
      yield plant(path, arrayOf('many empty objects', '{}'));
      yield plant(path, arrayOf('as many empty objects as the parser takes', '{}', PARSED_ENTRIES));
      yield plant(path, arrayOf('many nulls', 'null'));
      yield plant(path, arrayOf('many valid-looking items', itemText));
      const parsedItems = Math.floor(PARSED_ENTRIES / (1 + entriesOf(item)));
      yield plant(path, arrayOf('as many valid-looking items as the parser takes', itemText, parsedItems));
    }
    if (kinds.has('object')) {
      yield plant(path, unknownKeys, true);
      yield plant(path, parsedUnknownKeys, true);
      yield plant(path, longUnknownKeys, true);
    }
  }
  // The body itself: one huge key, a forbidden key the JSON parser must dig for, escaped NULs in
  // its first string field, and bodies that are not objects at all.
  yield plant([], oneHugeKey, true);
  yield plant([], forbiddenKeyDeepDown, true);
  const firstString = sites.find((site) => site.kinds.has('string'));
  if (firstString) yield plant(firstString.path, escapedControls);
  const whole = BODY_LIMIT_BYTES - BODY_MARGIN;
  const emptyObjects = arrayOf('many empty objects', '{}');
  yield bodyCase('body', emptyObjects, emptyObjects.make(whole));
  yield bodyCase('body', longString, longString.make(whole));
  yield bodyCase('body', deepArrays, deepArrays.make(whole));
}

/** Every field of a schema (the root included), with the kinds of value it takes. */
function sitesOf(schema: unknown, path: Segment[]): Site[] {
  if (schema === null || typeof schema !== 'object') return [];
  const node = schema as SchemaNode;
  const kinds = kindsOf(node);
  const sites: Site[] = kinds.size > 0 ? [{ path, kinds, schema: node }] : [];
  const properties = (node.properties ?? {}) as Record<string, unknown>;
  for (const [key, value] of Object.entries(properties)) sites.push(...sitesOf(value, [...path, key]));
  if (kinds.has('array')) sites.push(...sitesOf(node.items, [...path, 0]));
  return sites;
}

function kindsOf(node: SchemaNode): Set<Kind> {
  const kinds = new Set<Kind>();
  const types = Array.isArray(node.type) ? (node.type as unknown[]) : [node.type];
  for (const type of types) {
    if (type === 'integer' || type === 'number') kinds.add('number');
    else if (type === 'string' || type === 'boolean' || type === 'array' || type === 'object') kinds.add(type);
  }
  for (const branch of [...((node.anyOf ?? []) as unknown[]), ...((node.oneOf ?? []) as unknown[])]) {
    if (branch && typeof branch === 'object') for (const kind of kindsOf(branch as SchemaNode)) kinds.add(kind);
  }
  return kinds;
}

/** A value of the schema's shape (for an array the base body leaves out). */
function sampleOf(schema: unknown): unknown {
  const node = (schema ?? {}) as SchemaNode;
  const kinds = kindsOf(node);
  if (kinds.has('object')) {
    const properties = (node.properties ?? {}) as Record<string, unknown>;
    const required = (node.required ?? []) as string[];
    return Object.fromEntries(required.map((key) => [key, sampleOf(properties[key])]));
  }
  if (kinds.has('array')) return [];
  if (kinds.has('number')) return 1;
  if (kinds.has('boolean')) return true;
  return Array.isArray(node.enum) ? node.enum[0] : 'a';
}

/** Array items and object fields inside `value`, at every depth (as json-shape.ts counts them). */
function entriesOf(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  const children = Object.values(value);
  return children.reduce<number>((count, child) => count + entriesOf(child), children.length);
}

function getAt(value: unknown, path: Segment[]): unknown {
  return path.reduce<unknown>((node, segment) => (node && typeof node === 'object' ? (node as any)[segment] : undefined), value);
}

/** A copy of `value` with `leaf` at `path`, the containers on the way created where missing. */
function setAt(value: unknown, path: Segment[], leaf: unknown): unknown {
  const [head, ...rest] = path;
  if (head === undefined) return leaf;
  const copy: any = Array.isArray(value)
    ? [...value]
    : value && typeof value === 'object'
      ? { ...value }
      : typeof head === 'number'
        ? []
        : {};
  copy[head] = setAt(copy[head], rest, leaf);
  return copy;
}

/** `['addresses', 0, 'state']` → `addresses[0].state` (the body itself is `body`). */
function fieldName(path: Segment[]): string {
  const name = path.reduce<string>(
    (text, segment) => (typeof segment === 'number' ? `${text}[${segment}]` : text ? `${text}.${segment}` : segment),
    '',
  );
  return name || 'body';
}

/**
 * Query strings as long as the headers allow: a long value in every parameter, every parameter
 * repeated, unknown parameters by the thousand (which a route may ignore: those may succeed).
 */
function* queryCases(key: string, query: Record<string, SchemaNode>, base: BaseRequest): Generator<WorstCase> {
  const [path = '', search = ''] = base.url.split('?');
  /** The base query without `replaced`, and `make(budget)` in its place. */
  const queryCase = (name: string, replaced: string | null, make: (budget: number) => string, echo?: string): WorstCase => {
    const kept = new URLSearchParams(search);
    if (replaced !== null) kept.delete(replaced);
    const prefix = `${path}?${kept.size > 0 ? `${kept.toString()}&` : ''}`;
    return {
      name: `${key} query ${name}`,
      method: base.method,
      url: `${prefix}${make(URL_LIMIT - prefix.length)}`,
      refused: replaced !== null,
      ...(echo ? { echo } : {}),
    };
  };
  for (const [parameter, schema] of Object.entries(query)) {
    const char = kindsOf(schema).has('number') ? DIGIT : LONG_CHAR;
    const value = encodeURIComponent(new URLSearchParams(search).get(parameter) ?? String(sampleOf(schema)));
    const name = `${parameter}=`;
    yield queryCase(
      `${parameter}: a value as long as the headers allow`,
      parameter,
      (budget) => `${name}${char.repeat(budget - name.length)}`,
      echoOf(char),
    );
    yield queryCase(`${parameter}: repeated as often as the headers allow`, parameter, (budget) =>
      fill(budget, () => `${name}${value}`, '&'),
    );
  }
  yield queryCase('many unknown parameters', null, (budget) => fill(budget, (i) => `u${i}=1`, '&'));
  yield queryCase(
    'many unknown parameters, each a hundred characters long',
    null,
    (budget) => fill(budget, (i) => `${String(i).padStart(4, '0')}${KEY_CHAR.repeat(100)}=1`, '&'),
    KEY_CHAR.repeat(70),
  );
}
