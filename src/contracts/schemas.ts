import { Type, type TSchema } from '@sinclair/typebox';
import { ERROR_CODES, type ErrorCode } from '../errors.js';
import { TEXT_RULES_DOC, type TextKind } from '../shared/text.js';

/** `{success: true, data, message}`: the spec's success envelope. */
export const Envelope = <T extends TSchema>(data: T, options: { description?: string } = {}) =>
  Type.Object({ success: Type.Literal(true), data, message: Type.String() }, { additionalProperties: false, ...options });

/** `{success: false, error: {message, details?, code, request_id}}`: the spec's error envelope. */
export const ErrorEnvelope = Type.Object(
  {
    success: Type.Literal(false),
    error: Type.Object(
      {
        message: Type.String(),
        // Every code the server sends (errors.ts): generated clients get a closed union to switch on.
        code: Type.Unsafe<ErrorCode>({
          type: 'string',
          enum: [...ERROR_CODES],
          description: 'What went wrong, for programs (docs/errors.md); `message` says it for people.',
        }),
        details: Type.Optional(
          Type.Record(Type.String(), Type.String(), {
            description: 'Per-field messages, keyed by the field path (e.g. `addresses[0].state`).',
          }),
        ),
        retry_after: Type.Optional(Type.Integer({ description: 'Seconds to wait (429 only).' })),
        request_id: Type.String({ description: 'The X-Request-Id of the failed request.' }),
      },
      { additionalProperties: false },
    ),
  },
  { $id: 'ErrorEnvelope', additionalProperties: false, title: 'Error' },
);

export const errorRef = (description: string) => Type.Ref('ErrorEnvelope', { description });

/** Error responses every partner route can give; routes add their own (400, 403, 404). */
export const partnerErrors = {
  400: errorRef('Validation error: `details` names each invalid field.'),
  401: errorRef('Missing, unknown, revoked, expired or wrong-environment API key.'),
  429: errorRef('Rate limit exceeded: `retry_after` and the Retry-After header say when to retry.'),
  500: errorRef('Internal error: quote `request_id` to support.'),
} as const;

export const forbiddenError = { 403: errorRef('The body names a clinic other than the API key\u2019s.') } as const;
export const notFoundError = (what: string) => ({ 404: errorRef(`${what} not found.`) }) as const;
export const conflictError = (what: string) => ({ 409: errorRef(what) }) as const;

/** Error responses of operator routes. */
export const operatorErrors = {
  400: errorRef('Validation error.'),
  401: errorRef('Missing or wrong operator bearer token, or a console session that has ended.'),
  403: errorRef(
    'A staff member calling a route their role may not (docs/console.md#roles), anyone but the pharmacist signed in as themselves for an act that is theirs (a sign-off, a clinical hold\u2019s override), or a console request from another origin.',
  ),
  404: errorRef('Not found.'),
  500: errorRef('Internal error.'),
} as const;

/**
 * `T` or null: a field that is always present, null when it has no value. A `description` given here
 * is the field's (on the union, where the OpenAPI document and the generated client show it).
 */
export const Nullable = <T extends TSchema>(schema: T, options: { description?: string } = {}) =>
  Type.Union([schema, Type.Null()], options);

/** A string enum as `{type: string, enum}`, so that a bad value gets one "must be one of" message listing the valid ones. */
export const StringEnum = <T extends string>(values: readonly T[], description: string) =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], description });

export const Timestamp = Type.String({ description: 'ISO-8601 UTC.' });

export const Uuid = (description?: string) => Type.String({ format: 'uuid', ...(description ? { description } : {}) });

/** A required, non-blank string of at most `max` characters. */
export const Text = (
  max: number,
  options: { minLength?: number; description?: string; 'x-free-text'?: true; 'x-text'?: 'name' | 'address' } = {},
) => Type.String({ minLength: options.minLength ?? 1, maxLength: max, pattern: '\\S', ...options });

/** A field's description followed by the text rules of its kind (shared/text.ts, docs/errors.md#text-rules). */
export const textDoc = (kind: TextKind, description?: string): string =>
  description ? `${description} ${TEXT_RULES_DOC[kind]}` : TEXT_RULES_DOC[kind];

/** A name (of a person, a clinic, a medication): it must contain a letter, and holds no invisible characters. */
export const NameText = (max: number, options: { description?: string } = {}) =>
  Text(max, { 'x-text': 'name', description: textDoc('name', options.description) });

/** A line of a postal address, or a city: no invisible characters. */
export const AddressText = (max: number, options: { description?: string } = {}) =>
  Text(max, { 'x-text': 'address', description: textDoc('address', options.description) });

/** Carrier and service ids: opaque, URL-safe strings. */
export const OpaqueId = (description: string) =>
  Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]*$', description });

/** A page of results with an opaque cursor for the next one (operator lists). */
export const Page = <T extends TSchema>(item: T) =>
  Type.Object({ items: Type.Array(item), next_cursor: Type.Union([Type.String(), Type.Null()]) });

export const PageQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
  cursor: Type.Optional(Type.String({ maxLength: 200 })),
};

/** The operator API's security requirement (the operator token or a staff session). */
export const operatorSecurity = [{ operatorToken: [] }];

/** The partner portal's routes (docs/portal.md): a portal user's session cookie. */
export const portalSecurity = [{ portalSession: [] }];

/** Error responses of the partner portal's routes. */
export const portalErrors = {
  400: errorRef('Validation error: `details` names each invalid field.'),
  401: errorRef('No portal session, or one that has ended: sign in again.'),
  403: errorRef('A viewer asking for a change, or a change from another origin.'),
  404: errorRef('Not found (another clinic\u2019s ids are not found either).'),
  429: errorRef('Too many failed sign-ins or sessions from this address.'),
  500: errorRef('Internal error: quote `request_id`.'),
} as const;

/** Error responses of operator routes that create something with a unique name or id. */
export const createErrors = (what: string) => ({ ...operatorErrors, ...conflictError(`${what} already exists.`) });
