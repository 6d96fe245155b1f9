// Over 250 lines: the one Ajv compiler of every route with its text rules, hints and error paths, which must agree with each other.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { describeInvalidFields, type ErrorDetails } from '../errors.js';
import { compiledOnce } from './compiled-once.js';
import { decimalPlaces } from '../shared/decimals.js';
import { checkText, TEXT_KINDS, type TextKind } from '../shared/text.js';
import { FIELD_ALIASES } from './field-aliases.js';

// ajv-formats is CommonJS with a default export.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

function makeAjv(coerceTypes: boolean): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    coerceTypes: coerceTypes ? 'array' : false,
    useDefaults: true,
    removeAdditional: false,
    // parentSchema in errors, for the `x-message` and `x-aliases` annotations below.
    verbose: true,
    strict: false,
  });
  addFormats(ajv, ['email', 'uuid', 'date', 'date-time', 'uri']);
  ajv.addKeyword({ keyword: TEXT_RULES, type: 'string', schemaType: 'string', modifying: true, validate: checkTextKeyword });
  ajv.addKeyword({ keyword: DECIMAL_PLACES, type: 'number', schemaType: 'number', errors: false, validate: hasDecimalPlaces });
  return ajv;
}

/*
 * Text both databases store alike (issue 9, item 2) and that means what it shows (issue 21, item 5):
 * every string of a request is checked by the rules of its kind (shared/text.ts), and stored
 * NFC-normalized. PostgreSQL refuses NUL in text, and a lone surrogate cannot be encoded as UTF-8
 * (the drivers would replace it): such values, the other control characters and bidirectional
 * controls are refused with a 400 naming the field, instead of being stored on one database and
 * failing, or being rewritten, on the other. A schema says what a string holds with
 * `'x-text': 'name'` or `'address'` (no zero-width characters; a name holds a letter) or
 * `'x-free-text': true` (directions, notes: tabs and line breaks too); any other string is plain text.
 */
const TEXT_RULES = 'x-text-rules';
const TEXT_KIND = 'x-text';
const FREE_TEXT = 'x-free-text';
/** A number's most decimal places, checked on its shortest written form (`5e-324` has 324). */
export const DECIMAL_PLACES = 'x-decimal-places';

/** Where Ajv found the value (its DataValidationCxt): the container a keyword may write the value back to. */
interface DataPlace {
  parentData: unknown;
  parentDataProperty: string | number;
}

/** Ajv's function keyword: refuses by the text's kind, and puts the NFC form in the data. */
function checkTextKeyword(kind: TextKind, data: string, parentSchema?: Record<string, unknown>, cxt?: DataPlace): boolean {
  // A value over its length is refused by `maxLength`: not read further (bounded work, whatever its size).
  if (typeof parentSchema?.maxLength === 'number' && data.length > parentSchema.maxLength) return true;
  const { value, problem } = checkText(kind, data);
  if (value !== data && cxt !== undefined && typeof cxt.parentData === 'object' && cxt.parentData !== null) {
    (cxt.parentData as Record<string | number, unknown>)[cxt.parentDataProperty] = value;
  }
  checkTextKeyword.errors = problem === null ? undefined : [{ keyword: TEXT_RULES, message: problem, params: { kind } }];
  return problem === null;
}
checkTextKeyword.errors = undefined as Partial<ErrorObject>[] | undefined;

const hasDecimalPlaces = (places: number, data: number): boolean => decimalPlaces(data) <= places;

/**
 * A copy of a route schema in which every string is checked as text of its kind: `x-text` or
 * `x-free-text` where the schema says so, plain text everywhere else (ids in paths and query strings
 * included). Without `$id`s.
 */
export function withTextRules(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withTextRules);
  if (schema === null || typeof schema !== 'object') return schema;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    // An `$id` names a schema in the OpenAPI document only; left in, Ajv would refuse the second
    // compilation of a body schema with the same id (another route, another app in the process).
    if (key === '$id') continue;
    // Literal values (enum, const, default, examples) are data, not schemas.
    copy[key] = ['enum', 'const', 'default', 'examples', 'x-aliases'].includes(key) ? value : withTextRules(value);
  }
  const type = copy.type;
  if (type === 'string' || (Array.isArray(type) && type.includes('string'))) {
    const kind = copy[TEXT_KIND];
    copy[TEXT_RULES] = TEXT_KINDS.includes(kind as TextKind) ? kind : copy[FREE_TEXT] === true ? 'free' : 'plain';
  }
  return copy;
}

/** Bodies are validated strictly (a string is never turned into a number); query strings and paths are coerced. */
const bodyAjv = makeAjv(false);
const urlAjv = makeAjv(true);

/**
 * Fastify calls this per route and part, as an application is built: each schema is compiled at
 * its first use, once per process (compiled-once.ts).
 */
export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) =>
  compileValidator(schema as object, httpPart ?? 'body');

const compileValidator = compiledOnce('validators', (schema: object, httpPart: string) => {
  const ajv = httpPart === 'body' ? bodyAjv : urlAjv;
  const validate: ValidateFunction = ajv.compile(withTextRules(schema) as object);
  // A query string open to other parameters (they are ignored) still refuses a near miss of one it knows.
  const open = httpPart === 'querystring' && (schema as SchemaNode).additionalProperties !== false;
  return (data: unknown) => {
    // Sizes first: an array over its maximum, or an object full of unknown keys, is refused before
    // its elements are validated one by one (issue 9, item 1: bounded work for any input).
    const oversized = findOversized(schema, data, '');
    if (oversized) return { error: new RequestValidationError(httpPart, [], oversized) };
    const misses = open ? nearMissParameters(schema as SchemaNode, data) : null;
    if (validate(data)) return misses ? { error: new RequestValidationError('querystring', [], misses) } : { value: data };
    const error = new RequestValidationError(httpPart, validate.errors ?? []);
    return { error: misses ? new RequestValidationError('querystring', [], { ...misses, ...error.details }) : error };
  };
});

/** How an unknown field or query parameter is described: with the name meant, when there is a likely one. */
function unknownMessage(part: string, hint: string | undefined): string {
  const what = part === 'querystring' ? 'is not a known query parameter' : 'is not a known field';
  return hint ? `${what}; did you mean ${hint}?` : what;
}

/** A name as a partner may have meant it: letter case, `_` and `-` ignored (`patient_id`, `patientId`, `PatientID`). */
const looseName = (name: string): string => name.toLowerCase().replace(/[-_]/g, '');

/**
 * The name an unknown field or query parameter was probably meant to be: the schema's own
 * `x-aliases`, the older examples' names (field-aliases.ts), else the one known property that is the
 * same but for letter case, `_` and `-` (`patient_id` → `patientId`, `webhookId` → `webhook_id`).
 */
export function hintFor(name: string, schema: SchemaNode | undefined): string | undefined {
  const aliases = schema?.['x-aliases'] as Record<string, string> | undefined;
  const alias = aliases?.[name] ?? FIELD_ALIASES[name];
  if (alias !== undefined) return alias;
  const properties = schema?.properties;
  if (properties === null || typeof properties !== 'object') return undefined;
  const loose = looseName(name);
  const matches = Object.keys(properties).filter((known) => known !== name && looseName(known) === loose);
  return matches.length === 1 ? matches[0] : undefined;
}

/**
 * On a query string that ignores unknown parameters (`GET …/carriers/{carrierId}/services`): the
 * unknown ones that are a near miss of a parameter the route knows and was not sent
 * (`?patient_id=…` for `patientId`), which would otherwise be dropped in silence. Unknown parameters
 * that resemble nothing stay ignored, as before.
 */
function nearMissParameters(schema: SchemaNode, data: unknown): ErrorDetails | null {
  if (data === null || typeof data !== 'object') return null;
  const sent = data as Record<string, unknown>;
  const properties = (schema.properties ?? {}) as Record<string, unknown>;
  let misses: ErrorDetails | null = null;
  for (const name of Object.keys(sent)) {
    if (name in properties) continue;
    const hint = hintFor(name, schema);
    if (hint === undefined || !(hint in properties) || hint in sent) continue;
    (misses ??= {})[echoable(name)] = unknownMessage('querystring', hint);
  }
  return misses;
}

/** Unknown keys an object may carry before it is refused without naming each one. */
export const MAX_UNKNOWN_FIELDS = 20;
/** Problems named in `details` at most; the message says how many more were found. */
export const MAX_DETAILS = 20;
/** Longest field name repeated in an answer; a longer (unknown) one is cut. */
const MAX_ECHOED_NAME = 64;

type SchemaNode = Record<string, unknown>;

/**
 * The first size rule the data breaks, walking the schema and the data together: arrays longer than
 * `maxItems`, objects with more than `maxProperties` entries, and objects closed to unknown fields
 * holding more than MAX_UNKNOWN_FIELDS of them. Only
 * arrays and objects within their bounds are entered, so the walk itself is bounded.
 */
function findOversized(schema: unknown, data: unknown, path: string): ErrorDetails | null {
  if (schema === null || typeof schema !== 'object' || data === null || typeof data !== 'object') return null;
  const node = schema as SchemaNode;
  if (Array.isArray(data)) {
    const max = node.maxItems;
    if (typeof max === 'number' && data.length > max) {
      return { [path || 'body']: `must have at most ${max} item${max === 1 ? '' : 's'}` };
    }
    for (let i = 0; i < data.length; i++) {
      const found = findOversized(node.items, data[i], `${path}[${i}]`);
      if (found) return found;
    }
    return null;
  }
  const properties = (node.properties ?? {}) as Record<string, unknown>;
  const keys = Object.keys(data);
  if (typeof node.maxProperties === 'number' && keys.length > node.maxProperties) {
    return { [path || 'body']: `must have at most ${node.maxProperties} entries` };
  }
  if (node.additionalProperties === false) {
    const unknown = keys.filter((key) => !(key in properties)).length;
    if (unknown > MAX_UNKNOWN_FIELDS) {
      return { [path || 'body']: `has ${unknown} fields that are not known (at most ${MAX_UNKNOWN_FIELDS} are listed)` };
    }
  }
  for (const key of keys) {
    if (!(key in properties)) continue;
    const found = findOversized(properties[key], (data as Record<string, unknown>)[key], joinPath(path, key));
    if (found) return found;
  }
  return null;
}

/** A request that failed its schema; the error handler turns it into VALIDATION_ERROR with details. */
export class RequestValidationError extends Error {
  readonly details: ErrorDetails;

  constructor(part: string, errors: ErrorObject[], preset?: ErrorDetails) {
    const { details, more } = preset ? { details: preset, more: 0 } : describeErrors(part, errors);
    super(`${describeInvalidFields(details)}${more > 0 ? ` (and ${more} more problem${more === 1 ? '' : 's'})` : ''}`);
    this.name = 'RequestValidationError';
    this.details = details;
  }
}

/**
 * Turns ajv's errors into `{field: message}`, one message per field, in plain words: at most
 * MAX_DETAILS fields; `more` counts the fields left out.
 */
export function describeErrors(part: string, errors: ErrorObject[]): { details: ErrorDetails; more: number } {
  const details: ErrorDetails = {};
  let named = 0;
  let more = 0;
  // A "did you mean" hint first: the renamed field is often the cause of the others (`npi_number`
  // sent, so `npi` "is required"), and a partner reads the answer from the top.
  for (const error of [...errors].sort((a, b) => hintRank(a) - hintRank(b))) {
    // `anyOf` reports every branch; its own summary adds nothing for a partner.
    if (error.keyword === 'anyOf' || error.keyword === 'if') continue;
    let field = toFieldPath(error.instancePath);
    let message: string;
    switch (error.keyword) {
      case 'required': {
        const missing = (error.params as { missingProperty: string }).missingProperty;
        field = joinPath(field, missing);
        message = 'is required';
        break;
      }
      case 'additionalProperties': {
        const extra = (error.params as { additionalProperty: string }).additionalProperty;
        field = joinPath(field, extra);
        message = unknownMessage(part, hintFor(extra, error.parentSchema));
        break;
      }
      case TEXT_RULES:
        message = error.message ?? 'is not valid text';
        break;
      default:
        message = (error.parentSchema?.['x-message'] as string | undefined) ?? describeOne(error);
    }
    const key = echoable(field || part);
    if (key in details) continue;
    if (named < MAX_DETAILS) {
      details[key] = message;
      named += 1;
    } else {
      more += 1;
    }
  }
  return { details, more };
}

/** 0 for an unknown field with a hint (hintFor), 1 for any other problem; sort is stable, so ajv's order stays. */
function hintRank(error: ErrorObject): number {
  if (error.keyword !== 'additionalProperties') return 1;
  const extra = (error.params as { additionalProperty: string }).additionalProperty;
  return hintFor(extra, error.parentSchema) === undefined ? 1 : 0;
}

/** A field name as an answer may repeat it: an unknown one can be as long as the body. */
function echoable(field: string): string {
  return field.length <= MAX_ECHOED_NAME ? field : `${field.slice(0, MAX_ECHOED_NAME)}…`;
}

function describeOne(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'type':
      return `must be ${article(String(params.type))}`;
    case 'format':
      return FORMAT_MESSAGES[String(params.format)] ?? `must be a valid ${String(params.format)}`;
    case 'minLength':
      return params.limit === 1 ? 'must not be empty' : `must be at least ${String(params.limit)} characters`;
    case 'maxLength':
      return `must be at most ${String(params.limit)} characters`;
    case 'pattern':
      return params.pattern === '\\S' ? 'must not be blank' : 'has an invalid format';
    case 'enum':
      return `must be one of: ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'const':
      return `must be ${JSON.stringify(params.allowedValue)}`;
    case 'minimum':
      return `must be at least ${String(params.limit)}`;
    case 'exclusiveMinimum':
      return `must be greater than ${String(params.limit)}`;
    case 'maximum':
      return `must be at most ${String(params.limit)}`;
    case 'minItems':
      return `must have at least ${String(params.limit)} item${params.limit === 1 ? '' : 's'}`;
    case 'maxItems':
      return `must have at most ${String(params.limit)} item${params.limit === 1 ? '' : 's'}`;
    case 'minProperties':
      return 'must not be empty';
    case 'maxProperties':
      return `must have at most ${String(params.limit)} entries`;
    case 'propertyNames':
      return 'has an invalid key';
    case DECIMAL_PLACES: {
      const places = Number(error.schema);
      return places === 0 ? 'must be a whole number' : `must have at most ${places} decimal place${places === 1 ? '' : 's'}`;
    }
    default:
      return error.message ?? 'is invalid';
  }
}

const FORMAT_MESSAGES: Record<string, string> = {
  email: 'must be a valid email address',
  uuid: 'must be a UUID',
  date: 'must be a date written YYYY-MM-DD',
  'date-time': 'must be an ISO 8601 date-time',
  uri: 'must be an absolute URL',
};

function article(type: string): string {
  if (type === 'integer') return 'a whole number';
  if (type === 'object' || type === 'array') return `an ${type}`;
  if (type === 'null') return 'null';
  return `a ${type}`;
}

/** `/addresses/0/state` → `addresses[0].state`. */
export function toFieldPath(pointer: string): string {
  if (pointer === '') return '';
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((path, segment) => (/^\d+$/.test(segment) ? `${path}[${segment}]` : joinPath(path, segment)), '');
}

function joinPath(base: string, segment: string): string {
  return base === '' ? segment : `${base}.${segment}`;
}
