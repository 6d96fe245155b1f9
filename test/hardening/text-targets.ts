// Over 250 lines on purpose: every text field of every route, with how each fuzzed value is put into it, in one table.
import fc from 'fast-check';
import { expect } from 'vitest';
import type { DialectName } from '../../src/db/database.js';
import { decodeCursor, encodeCursor, type PagePosition } from '../../src/db/keyset-page.js';
import { decodeQueueCursor, encodeQueueCursor } from '../../src/fulfillment/queue-cursor.js';
import { decodeHoldCursor, encodeHoldCursor } from '../../src/holds/held-orders-cursor.js';
import type { RegisteredRoute } from '../../src/http/routes-index.js';
import { OPERATOR_TOKEN, TestApp, type Reply } from '../helpers/test-app.js';
import {
  EACH_ENTRY,
  EACH_ITEM,
  ENTRY_KEY,
  isApiRoute,
  routeKey,
  textFieldsOf,
  type FieldSegment,
  type TextField,
} from './text-fields.js';
import { BASES, type ApiRequest, type BaseRequest, type TextWorld } from './text-world.js';

/**
 * The text fuzz of issue 9, item 2, shared by the main suite (a few values per field) and the fault
 * suite (many): every text field of every partner, operator and portal route gets arbitrary Unicode (lone
 * surrogates, NUL and the other controls included), on its own or inserted into the field's valid
 * value, and every database must answer it with the same status, never a 5xx.
 */

/** One text field of one route, and the valid request the fuzzed value is put into. */
export interface TextTarget {
  /** `POST /api/external/patient body contacts[].value` */
  name: string;
  route: RegisteredRoute;
  field: TextField;
  base: BaseRequest;
  /** Set when the fuzz edits the text the field's value stands for, rather than the value itself. */
  encoding?: Encoding;
}

/** An opaque value that the server decodes into text of its own. */
interface Encoding {
  label: string;
  /** The value with the edit applied to the text inside it. */
  edit(edit: TextEdit, value: unknown): string;
}

/** Fields by name whose value the server decodes: a page cursor holds a time and an id, which reach the database. */
const ENCODINGS: Record<string, Encoding> = {
  cursor: {
    label: 'the position inside',
    edit: (edit, value) => {
      const change = (position: PagePosition): PagePosition =>
        edit.pick % 2 === 0
          ? { ...position, createdAt: applyEdit(edit, position.createdAt) }
          : { ...position, id: applyEdit(edit, position.id) };
      // The order queue's default sort has a cursor of its own (orders/queue-cursor.ts): [part, time, id];
      // so has the portal's list of holds (holds/held-orders-cursor.ts), with parts 'a' and 'b'.
      const raw: unknown = JSON.parse(Buffer.from(String(value), 'base64url').toString('utf8'));
      if (Array.isArray(raw) && raw.length === 3 && (raw[0] === 'a' || raw[0] === 'b')) {
        const held = decodeHoldCursor(String(value));
        return encodeHoldCursor({ ...held, at: change(held.at) });
      }
      if (Array.isArray(raw) && raw.length === 3) {
        const queued = decodeQueueCursor(String(value));
        return encodeQueueCursor({ ...queued, at: change(queued.at) });
      }
      return encodeCursor(change(decodeCursor(String(value))));
    },
  },
};

/** The partner, operator and portal routes the application registers (read from an app on an in-memory database). */
export async function registeredApiRoutes(): Promise<RegisteredRoute[]> {
  const t = await TestApp.start({ dialect: 'sqlite' });
  try {
    return t.app.registeredRoutes().filter(isApiRoute);
  } finally {
    await t.close();
  }
}

/** Every text field of every route that has a base request. */
export function textTargetsOf(routes: RegisteredRoute[]): TextTarget[] {
  return routes.flatMap((route) => {
    const base = BASES[routeKey(route)];
    if (!base) return [];
    return textFieldsOf(route).flatMap((field) => {
      const target = { name: `${routeKey(route)} ${field.part} ${fieldName(field.path)}`, route, field, base };
      const last = field.path[field.path.length - 1];
      const encoding = typeof last === 'string' ? ENCODINGS[last] : undefined;
      return encoding ? [target, { ...target, name: `${target.name} (${encoding.label})`, encoding }] : [target];
    });
  });
}

/** Routes with text fields that the fuzz cannot reach, for want of a base request. */
export const routesWithoutBase = (routes: RegisteredRoute[]): string[] =>
  routes.filter((route) => textFieldsOf(route).length > 0 && !(routeKey(route) in BASES)).map(routeKey);

/** Base requests of routes that no longer exist (or have no text field left). */
export const basesWithoutRoute = (routes: RegisteredRoute[]): string[] =>
  Object.keys(BASES).filter((key) => !routes.some((route) => routeKey(route) === key && textFieldsOf(route).length > 0));

const fieldName = (path: FieldSegment[]): string =>
  path
    .map((segment) =>
      segment === EACH_ITEM ? '[]' : segment === EACH_ENTRY ? '.*' : segment === ENTRY_KEY ? '{key}' : `.${segment}`,
    )
    .join('')
    .replace(/^\./, '');

/** Any UTF-16 code unit (lone surrogates and controls included), any code point, or a known troublemaker. */
export const anyText: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((n) => String.fromCharCode(n)), maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.constantFrom(
    ...['', ' ', '\u0000', 'a\u0000', '\t', '\r\n', '\u0085', '\u00a0', '\u2028', '\ufeff', '\uffff', '\ud800', '\udfff'],
    ...['\ud83d\udc8a', 'José Ñandú', 'İ', 'ß', '%00', '..', '/', '?', '#', '&', '\\', '"'],
  ),
);

/** How a field's value is fuzzed. */
export interface TextEdit {
  text: string;
  /** Null: `text` replaces the value; otherwise it is inserted into the valid value at this offset (modulo its length). */
  at: number | null;
  /** Which element of an array (modulo its length in the base request). */
  pick: number;
}

export const anyTextEdit: fc.Arbitrary<TextEdit> = fc.record({
  text: anyText,
  at: fc.option(fc.nat(), { nil: null, freq: 2 }),
  pick: fc.nat(99),
});

export function applyEdit(edit: TextEdit, value: unknown): string {
  if (edit.at === null || typeof value !== 'string') return edit.text;
  const at = edit.at % (value.length + 1);
  return `${value.slice(0, at)}${edit.text}${value.slice(at)}`;
}

/** Sends the target's base request with the edit applied to the field; answers the reply and the field's name in it. */
export async function sendText(world: TextWorld, target: TextTarget, edit: TextEdit): Promise<{ reply: Reply; field: string }> {
  const request = await target.base(world);
  const { field, encoding } = target;
  const change = (value: unknown) => (encoding ? encoding.edit(edit, value) : applyEdit(edit, value));
  if (field.part === 'body') {
    const edited = putInBody(request.body, field.path, edit.pick, change);
    return { reply: await sendApi(world, target.route, { ...request, body: edited.body }), field: edited.field };
  }
  const name = field.path[0] as string;
  const key = field.part === 'params' ? 'params' : 'query';
  const values = { ...request[key] };
  values[name] = change(values[name]);
  return { reply: await sendApi(world, target.route, { ...request, [key]: values }), field: name };
}

/**
 * A copy of the body with the value at `path` changed (containers created where the base has none;
 * `pick` chooses an array's element). The field is named as the validation names it (`medication_requests[0].notes`).
 */
function putInBody(
  body: unknown,
  path: FieldSegment[],
  pick: number,
  change: (value: unknown) => string,
): { body: unknown; field: string } {
  const root = structuredClone((body ?? {}) as Record<string, unknown>);
  const join = (base: string, name: string) => (base === '' ? name : `${base}.${name}`);
  let node: any = root;
  let field = '';
  for (const [i, segment] of path.entries()) {
    const next = path[i + 1];
    if (segment === ENTRY_KEY) {
      // The first entry is renamed (an entry is added to an empty record).
      const [first] = Object.keys(node);
      const value = first === undefined ? null : node[first];
      if (first !== undefined) Reflect.deleteProperty(node, first);
      const key = change(first);
      node[key] = value;
      field = join(field, key);
      break;
    }
    let key: string | number;
    if (segment === EACH_ITEM) {
      key = Array.isArray(node) && node.length > 0 ? pick % node.length : 0;
      field = `${field}[${key}]`;
    } else {
      key = segment === EACH_ENTRY ? (Object.keys(node)[0] ?? 'key') : segment;
      field = join(field, key);
    }
    if (next === undefined) node[key] = change(node[key]);
    else node = node[key] ??= next === EACH_ITEM ? [] : {};
  }
  return { body: root, field };
}

/**
 * Percent-encodes what a client could put on the wire: UTF-8, and a lone surrogate as the bytes
 * of its would-be UTF-8 form (%ED%A0%80), which is no valid UTF-8 (encodeURIComponent throws on it).
 */
export function percentEncode(value: string): string {
  let out = '';
  for (const char of value) {
    const code = char.codePointAt(0) ?? 0;
    if (code >= 0xd800 && code <= 0xdfff) {
      out += [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)]
        .map((byte) => `%${byte.toString(16).toUpperCase()}`)
        .join('');
    } else {
      out += encodeURIComponent(char);
    }
  }
  return out;
}

/**
 * Sends a request to a route: the operator's token on /api/admin, the partner's key on /api/external,
 * the world's portal developer's session on /api/portal (unless the request has headers of its own).
 */
export function sendApi(world: TextWorld, route: RegisteredRoute, request: ApiRequest): Promise<Reply> {
  const path = route.url.replace(/:([A-Za-z0-9_]+)/g, (_match, name: string) => percentEncode(request.params?.[name] ?? ''));
  const query = Object.entries(request.query ?? {})
    .map(([name, value]) => `${name}=${percentEncode(value)}`)
    .join('&');
  const url = query === '' ? path : `${path}?${query}`;
  const headers = request.headers ?? (route.url.startsWith('/api/portal/') ? world.portal.headers : undefined);
  if (headers !== undefined) {
    return world.t.request(route.method, url, {
      headers: { ...headers, ...(request.body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: request.body,
      ...(request.remoteAddress === undefined ? {} : { remoteAddress: request.remoteAddress }),
    });
  }
  if (request.remoteAddress !== undefined) {
    return world.t.request(route.method, url, {
      headers: { authorization: `Bearer ${OPERATOR_TOKEN}`, 'content-type': 'application/json' },
      body: request.body,
      remoteAddress: request.remoteAddress,
    });
  }
  const client = route.url.startsWith('/api/admin/')
    ? world.t.operator
    : world.t.partner(request.apiKey ?? world.setup.clinic.apiKey);
  switch (route.method) {
    case 'GET':
      return client.get(url);
    case 'POST':
      return client.post(url, request.body);
    case 'PUT':
      return client.put(url, request.body);
    case 'PATCH':
      return client.patch(url, request.body);
    case 'DELETE':
      return client.delete(url, request.body);
    default:
      throw new Error(`no client method for ${route.method}`);
  }
}

/** The fuzz's seed for one target: the suite's seed and the target's name, so that adding a target changes no other's values. */
function seedOf(name: string, seed: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) hash = Math.imul(hash ^ name.charCodeAt(i), 0x01000193);
  return (hash ^ seed) | 0;
}

/**
 * The property: for any edit of the target's field, every database answers the same status, and
 * none answers a 5xx. The worlds are called one after the other with the same requests, so that
 * they go through the same states.
 */
export async function expectSameAnswerEverywhere(
  target: TextTarget,
  worlds: { dialect: DialectName; world: TextWorld }[],
  options: { seed: number; numRuns: number },
): Promise<void> {
  await fc.assert(
    fc.asyncProperty(anyTextEdit, async (edit) => {
      const answers: { dialect: DialectName; status: number; message: string }[] = [];
      for (const { dialect, world } of worlds) {
        const { reply } = await sendText(world, target, edit);
        answers.push({ dialect, status: reply.status, message: reply.body?.error?.message ?? '' });
      }
      const summary = answers.map((a) => `${a.dialect}: ${a.status} ${a.message}`).join('; ');
      expect(
        answers.filter((a) => a.status >= 500),
        `a 5xx (${summary})`,
      ).toEqual([]);
      expect(new Set(answers.map((a) => a.status)).size, `the databases disagree (${summary})`).toBe(1);
    }),
    { seed: seedOf(target.name, options.seed), numRuns: options.numRuns },
  );
}
