import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { describeInvalidFields, type ErrorDetails } from '../errors.js';
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
  return ajv;
}

/** Bodies are validated strictly (a string is never turned into a number); query strings and paths are coerced. */
const bodyAjv = makeAjv(false);
const urlAjv = makeAjv(true);

/**
 * Compiles each route schema once, at start-up. Fastify calls this per route and part.
 */
export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : urlAjv;
  const validate: ValidateFunction = ajv.compile(schema as object);
  return (data: unknown) => {
    if (validate(data)) return { value: data };
    return { error: new RequestValidationError(httpPart ?? 'body', validate.errors ?? []) };
  };
};

/** A request that failed its schema; the error handler turns it into VALIDATION_ERROR with details. */
export class RequestValidationError extends Error {
  readonly details: ErrorDetails;

  constructor(part: string, errors: ErrorObject[]) {
    const details = describeErrors(part, errors);
    super(describeInvalidFields(details));
    this.name = 'RequestValidationError';
    this.details = details;
  }
}

/** Turns ajv's errors into `{field: message}`, one message per field, in plain words. */
export function describeErrors(part: string, errors: ErrorObject[]): ErrorDetails {
  const details: ErrorDetails = {};
  for (const error of errors) {
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
        const aliases = error.parentSchema?.['x-aliases'] as Record<string, string> | undefined;
        const hint = aliases?.[extra] ?? FIELD_ALIASES[extra];
        message = hint ? `is not a known field; did you mean ${hint}?` : 'is not a known field';
        break;
      }
      default:
        message = (error.parentSchema?.['x-message'] as string | undefined) ?? describeOne(error);
    }
    const key = field || part;
    if (!(key in details)) details[key] = message;
  }
  return details;
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
