import { createHash } from 'node:crypto';
import type {
  DateValue,
  FhirResourceKind,
  SearchCriterion,
  SearchParamDefinition,
  SearchQuery,
  TokenValue,
} from './fhir-resource.js';
import { fhirInvalid, fhirNotSupported } from './fhir-errors.js';
import { decodeOpaqueCursor, encodeOpaqueCursor } from '../shared/opaque-cursor.js';

/*
 * A FHIR search's query string, parsed and checked before anything reaches the database (FHIR R4
 * §3.1.1, docs/fhir.md#searching). Every refusal is a 400 OperationOutcome naming the parameter:
 * an unknown parameter, a chained or reverse-chained one, a modifier we do not implement, a value of
 * the wrong shape or outside its value set, a parameter repeated (alternatives are comma-separated:
 * `status=active,on-hold`), `_count` outside 1–100, and a continuation this server did not hand out.
 */

export const DEFAULT_COUNT = 50;
export const MAX_COUNT = 100;
/** Alternatives of one parameter (`status=a,b,c`): more is a 400, so a search costs bounded work. */
export const MAX_ALTERNATIVES = 20;
/** The longest value of one alternative: longer is a 400. */
export const MAX_VALUE_LENGTH = 200;
/** The continuation parameter of our `next` links: opaque, tied to the search it continues. */
export const CURSOR_PARAM = '_cursor';

export type { DateValue, SearchCriterion, SearchQuery, TokenValue };

/** Result parameters every search takes (besides each resource's own and `_include`). */
const RESULT_PARAMS = new Set(['_count', CURSOR_PARAM, '_format']);

export interface ParsedSearch {
  readonly query: SearchQuery;
  readonly count: number;
  readonly afterId: string | null;
  /** A digest of the criteria: a continuation carries it, so that it only continues the same search. */
  readonly fingerprint: string;
}

/** The query string as Fastify parses it: a repeated parameter is an array. */
export type RawQuery = Record<string, string | string[] | undefined>;

/** Parses and checks a search of `kind` (400 OperationOutcome naming the parameter on any problem). */
export function parseSearch(kind: FhirResourceKind, raw: RawQuery): ParsedSearch {
  const criteria = new Map<string, SearchCriterion>();
  const include: string[] = [];
  let count = DEFAULT_COUNT;
  let cursor: string | undefined;
  const byName = new Map(kind.searchParams.map((param) => [param.name, param]));
  for (const [key, given] of Object.entries(raw)) {
    if (given === undefined) continue;
    const shown = shownName(key);
    if (Array.isArray(given)) {
      throw fhirInvalid(shown, `${shown} is given ${given.length} times: give it once, with alternatives separated by commas`);
    }
    checkText(shown, given);
    if (key === '_count') count = parseCount(given);
    else if (key === CURSOR_PARAM) cursor = given;
    else if (key === '_format') continue;
    else if (key === '_include') include.push(parseInclude(kind, given));
    else criteria.set(...parseCriterion(kind, byName, key, given));
  }
  const fingerprint = fingerprintOf(kind.type, criteria, include);
  const afterId = cursor === undefined ? null : decodeContinuation(cursor, fingerprint);
  return { query: { criteria, include }, count, afterId, fingerprint };
}

function parseCount(value: string): number {
  if (!/^\d{1,4}$/.test(value)) throw fhirInvalid('_count', `_count must be a whole number from 1 to ${MAX_COUNT}`);
  const count = Number(value);
  if (count < 1 || count > MAX_COUNT) throw fhirInvalid('_count', `_count must be a whole number from 1 to ${MAX_COUNT}`);
  return count;
}

function parseInclude(kind: FhirResourceKind, value: string): string {
  const known = kind.includes ?? [];
  if (!known.includes(value)) {
    throw fhirNotSupported(
      '_include',
      known.length === 0
        ? `_include is not supported on ${kind.type}`
        : `_include=${value.slice(0, 100)} is not supported on ${kind.type}; supported: ${known.join(', ')}`,
    );
  }
  return value;
}

function parseCriterion(
  kind: FhirResourceKind,
  byName: ReadonlyMap<string, SearchParamDefinition>,
  key: string,
  value: string,
): [string, SearchCriterion] {
  const shown = shownName(key);
  if (key.startsWith('_has:') || key === '_has') {
    throw fhirNotSupported(shown, 'reverse chaining (_has) is not supported');
  }
  const [name = '', modifier, ...rest] = key.split(':');
  if (name.includes('.')) throw fhirNotSupported(shown, `chained search (${shown}) is not supported`);
  const param = byName.get(name);
  if (param === undefined) {
    const known = [...byName.keys(), '_count', '_include'].filter((n) => n !== '_include' || (kind.includes ?? []).length > 0);
    const problem = RESULT_PARAMS.has(name) || name.startsWith('_') ? 'is not supported' : 'is not a search parameter';
    throw fhirNotSupported(shown, `${shown} ${problem} on ${kind.type}; supported: ${known.join(', ')}`);
  }
  if (rest.length > 0) throw fhirNotSupported(shown, `${shown}: one modifier at most`);
  const alternatives = value.split(',');
  if (alternatives.length > MAX_ALTERNATIVES) {
    throw fhirInvalid(shown, `${shown} has ${alternatives.length} alternatives; at most ${MAX_ALTERNATIVES}`);
  }
  if (alternatives.some((alternative) => alternative === '')) throw fhirInvalid(shown, `${shown} has an empty value`);
  return [name, criterionOf(param, shown, modifier, alternatives)];
}

function criterionOf(
  param: SearchParamDefinition,
  shown: string,
  modifier: string | undefined,
  values: string[],
): SearchCriterion {
  switch (param.type) {
    case 'string': {
      if (modifier !== undefined && modifier !== 'exact' && modifier !== 'contains') {
        throw fhirNotSupported(
          shown,
          `the modifier :${modifier.slice(0, 40)} is not supported on ${param.name} (use :exact or :contains)`,
        );
      }
      return { type: 'string', modifier, values };
    }
    case 'token': {
      if (modifier !== undefined) throw fhirNotSupported(shown, `modifiers are not supported on ${param.name}`);
      return { type: 'token', values: values.map((value) => tokenOf(param, shown, value)) };
    }
    case 'date': {
      if (modifier !== undefined) throw fhirNotSupported(shown, `modifiers are not supported on ${param.name}`);
      return { type: 'date', values: values.map((value) => dateOf(shown, value)) };
    }
    case 'reference': {
      if (modifier !== undefined && modifier !== param.target) {
        throw fhirNotSupported(shown, `the modifier :${modifier.slice(0, 40)} is not supported on ${param.name}`);
      }
      return { type: 'reference', values: values.map((value) => referenceOf(param, shown, value)) };
    }
  }
}

function tokenOf(param: SearchParamDefinition, shown: string, value: string): TokenValue {
  const bar = value.indexOf('|');
  const token: TokenValue = bar === -1 ? { code: value } : { system: value.slice(0, bar), code: value.slice(bar + 1) };
  if (token.code === '') throw fhirInvalid(shown, `${shown} has a system but no code`);
  if (param.codes !== undefined && !param.codes.includes(token.code)) {
    throw fhirInvalid(shown, `${shown}=${token.code.slice(0, 60)} is not a known code; known: ${param.codes.join(', ')}`);
  }
  return token;
}

const DATE = /^(eq|ne|lt|gt|le|ge)?(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?$/;

function dateOf(shown: string, value: string): DateValue {
  const match = DATE.exec(value);
  const problem = `${shown} must be a date (YYYY, YYYY-MM or YYYY-MM-DD, optionally after eq, ne, lt, gt, le or ge)`;
  if (match === null) throw fhirInvalid(shown, problem);
  const [, prefix = 'eq', year = '', month, day] = match;
  const m = month === undefined ? undefined : Number(month);
  if (m !== undefined && (m < 1 || m > 12)) throw fhirInvalid(shown, problem);
  const lastDay = (mm: number) => new Date(Date.UTC(Number(year), mm, 0)).getUTCDate();
  if (day !== undefined && (Number(day) < 1 || Number(day) > lastDay(m ?? 1))) throw fhirInvalid(shown, problem);
  const two = (n: number) => String(n).padStart(2, '0');
  const start = `${year}-${month ?? '01'}-${day ?? '01'}`;
  const end = day !== undefined ? start : m !== undefined ? `${year}-${two(m)}-${two(lastDay(m))}` : `${year}-12-31`;
  return { prefix: prefix as DateValue['prefix'], start, end };
}

/** `123`, `Patient/123` or `https://…/fhir/R4/Patient/123`: the id, when the type (if any) is the target. */
function referenceOf(param: SearchParamDefinition, shown: string, value: string): string {
  const parts = value.split('/');
  const id = parts[parts.length - 1] ?? '';
  const type = parts.length > 1 ? parts[parts.length - 2] : undefined;
  if (type !== undefined && param.target !== undefined && type !== param.target) {
    throw fhirInvalid(shown, `${shown} must refer to a ${param.target}`);
  }
  if (!FHIR_ID.test(id)) throw fhirInvalid(shown, `${shown} must be a ${param.target ?? 'resource'} id`);
  return id;
}

/** FHIR's id type (R4 §2.24.0.1): 1 to 64 letters, digits, '-' and '.'. */
export const FHIR_ID = /^[A-Za-z0-9\-.]{1,64}$/;

/** What a refusal may repeat of a parameter's name: a name can be anything the URL carried. */
function shownName(key: string): string {
  const clean = key.replace(/[^\w:.\-|]/g, '?');
  return clean.length > 60 ? `${clean.slice(0, 60)}…` : clean;
}

function checkText(shown: string, value: string): void {
  if (value.length > MAX_VALUE_LENGTH * 4) throw fhirInvalid(shown, `${shown} is too long`);
  // eslint-disable-next-line no-control-regex -- control characters are what this refuses.
  if (/[\u0000-\u001f\u007f]/.test(value)) throw fhirInvalid(shown, `${shown} holds a control character`);
  for (const alternative of value.split(',')) {
    if (alternative.length > MAX_VALUE_LENGTH)
      throw fhirInvalid(shown, `${shown} is too long (at most ${MAX_VALUE_LENGTH} characters a value)`);
  }
}

function fingerprintOf(type: string, criteria: ReadonlyMap<string, SearchCriterion>, include: readonly string[]): string {
  const canonical = JSON.stringify([
    type,
    [...criteria.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    [...include].sort(),
  ]);
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 16);
}

/** The continuation of a search after the match `lastId`: opaque to clients. */
export function encodeContinuation(lastId: string, fingerprint: string): string {
  return encodeOpaqueCursor([lastId, fingerprint]);
}

function decodeContinuation(cursor: string, fingerprint: string): string {
  const refused = fhirInvalid(
    CURSOR_PARAM,
    `${CURSOR_PARAM} is not a continuation of this search (follow the Bundle's next link as given)`,
  );
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) throw refused;
  const value = decodeOpaqueCursor(cursor);
  if (value?.length !== 2) throw refused;
  const [lastId, print] = value;
  if (typeof lastId !== 'string' || !FHIR_ID.test(lastId) || print !== fingerprint) throw refused;
  return lastId;
}
