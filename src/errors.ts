/**
 * Error codes of the spec (Errors section), plus the few HTTP-level codes the spec
 * leaves unnamed (documented in docs/errors.md).
 */
export const ERROR_CODES = [
  'VALIDATION_ERROR',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'NOT_FOUND',
  'CONFLICT',
  'IDEMPOTENCY_KEY_REUSED',
  'METHOD_NOT_ALLOWED',
  'NOT_ACCEPTABLE',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'REQUEST_TIMEOUT',
  'EXPECTATION_FAILED',
  'RATE_LIMIT_EXCEEDED',
  'INTERNAL_ERROR',
  'SERVICE_UNAVAILABLE',
  'STATE_NOT_LICENSED',
  'PRESCRIBER_NOT_LICENSED',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** Per-field messages: `{ "addresses[0].state": "must be a two-letter US state code" }`. */
export type ErrorDetails = Record<string, string>;

/** The one error type of the service; the HTTP error handler maps it to the spec's envelope. */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly statusCode: number,
    message: string,
    readonly details?: ErrorDetails,
    /** Extra top-level fields of `error` (e.g. `retry_after`). */
    readonly extra?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export const validationError = (message: string, details?: ErrorDetails): AppError =>
  new AppError('VALIDATION_ERROR', 400, message, details);

/** `Validation failed: a is required; b must be a UUID`: every invalid field, named, in one sentence. */
export const describeInvalidFields = (details: ErrorDetails): string =>
  `Validation failed: ${Object.entries(details)
    .map(([field, problem]) => `${field} ${problem}`)
    .join('; ')}`;

/** Invalid fields: the message names each field, and `details` holds each one's problem. */
export const invalidFields = (details: ErrorDetails): AppError =>
  new AppError('VALIDATION_ERROR', 400, describeInvalidFields(details), details);

/** A single invalid field: the message names the field and the same text lands in `details`. */
export const fieldError = (field: string, problem: string): AppError => invalidFields({ [field]: problem });

export const notFound = (message: string): AppError => new AppError('NOT_FOUND', 404, message);

export const forbidden = (message: string): AppError => new AppError('FORBIDDEN', 403, message);

export const unauthorized = (reason: string): AppError => new AppError('UNAUTHORIZED', 401, `Unauthorized: ${reason}`);

export const conflict = (message: string, details?: ErrorDetails): AppError => new AppError('CONFLICT', 409, message, details);
