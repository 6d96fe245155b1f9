import type { FastifyError } from 'fastify';
import { toAppError } from '../contracts/error-handler.js';

/**
 * The token endpoint's errors: RFC 6749 §5.2's `{error, error_description}`, the only answers of the
 * server that are not in the spec's envelope (an OAuth client library reads these). `server_error`
 * and `temporarily_unavailable` are RFC 6749 §4.1.2.1's, for a 500 and a 503.
 */
export const OAUTH_ERROR_CODES = [
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'invalid_scope',
  'server_error',
  'temporarily_unavailable',
] as const;
export type OAuthErrorCode = (typeof OAUTH_ERROR_CODES)[number];

export class OAuthError extends Error {
  constructor(
    readonly error: OAuthErrorCode,
    readonly statusCode: number,
    description: string,
    /** The client authenticated with HTTP Basic: a 401 then carries `WWW-Authenticate: Basic` (RFC 6749 §5.2). */
    readonly basic = false,
  ) {
    super(description);
    this.name = 'OAuthError';
  }
}

export const invalidRequest = (description: string): OAuthError => new OAuthError('invalid_request', 400, description);

/** Client authentication failed; always 401 (RFC 6749 §5.2 allows it for every method). */
export const invalidClient = (description: string, basic: boolean): OAuthError =>
  new OAuthError('invalid_client', 401, description, basic);

/** Anything thrown on the token endpoint (the shared hooks' refusals, the parser's, a bug) as an OAuthError. */
export function toOAuthError(error: unknown, bodyLimitBytes: number): OAuthError {
  if (error instanceof OAuthError) return error;
  switch ((error as Partial<FastifyError>).code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new OAuthError('invalid_request', 413, `The request body is limited to ${bodyLimitBytes} bytes`);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return invalidRequest('Send the body as application/x-www-form-urlencoded (RFC 6749 §4.4.2)');
    default:
      break;
  }
  const appError = toAppError(error);
  if (appError.statusCode === 503) return new OAuthError('temporarily_unavailable', 503, appError.message);
  if (appError.statusCode >= 500) return new OAuthError('server_error', 500, 'Internal server error');
  // A refusal of the shared hooks (HTTPS required, a missing Host) keeps its status and its words.
  return new OAuthError('invalid_request', appError.statusCode === 401 ? 400 : appError.statusCode, appError.message);
}
