import { decodeJwt } from 'jose';
import { invalidClient, invalidRequest } from './oauth-errors.js';
import type { TokenRequest } from './oauth.schemas.js';

/**
 * How a token request authenticates its client (RFC 6749 §2.3.1, RFC 7523 §2.2): pure parsing of the
 * Authorization header and the form, refusing what no lookup could fix.
 */
export type ClientCredentials =
  /** HTTP Basic: `base64(urlencode(client_id) ":" urlencode(client_secret))`. */
  | { readonly method: 'basic'; readonly clientId: string; readonly secret: string }
  /** `client_id` and `client_secret` in the form. */
  | { readonly method: 'post'; readonly clientId: string; readonly secret: string }
  /** private_key_jwt: the client id is the assertion's `sub` (checked against its `iss` once verified). */
  | { readonly method: 'jwt'; readonly clientId: string; readonly assertion: string };

export const JWT_BEARER_ASSERTION = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
/** Far beyond any real client id, secret or assertion: longer values are refused unread. */
const MAX_CREDENTIAL_LENGTH = 8192;

/**
 * A form body (`application/x-www-form-urlencoded`) as its fields. RFC 6749 §3.1: a field sent
 * without a value counts as omitted; §3.2: a field may not be repeated (invalid_request).
 */
export function parseForm(text: string): Record<string, string> {
  const fields = new Map<string, string>();
  for (const [name, value] of new URLSearchParams(text)) {
    if (value === '') continue;
    if (fields.has(name)) throw invalidRequest(`The parameter ${name.slice(0, 100)} is repeated`);
    fields.set(name, value);
  }
  return Object.fromEntries(fields);
}

/** The client's credentials, by the one method the request uses. */
export function clientCredentialsOf(authorization: string | undefined, form: TokenRequest): ClientCredentials {
  const jwt = form.client_assertion !== undefined || form.client_assertion_type !== undefined;
  const methods = [authorization !== undefined, form.client_secret !== undefined, jwt].filter(Boolean).length;
  if (methods > 1) {
    throw invalidRequest(
      'Use one client authentication method: HTTP Basic, client_id and client_secret in the body, or a client_assertion',
    );
  }
  if (authorization !== undefined) {
    const basic = basicCredentials(authorization);
    if (form.client_id !== undefined && form.client_id !== basic.clientId) {
      throw invalidRequest('client_id in the body is not the one of the Authorization header');
    }
    return basic;
  }
  if (form.client_secret !== undefined) {
    if (form.client_id === undefined) throw invalidRequest('client_id is required with client_secret');
    return { method: 'post', clientId: form.client_id, secret: form.client_secret };
  }
  if (jwt) return assertionCredentials(form);
  throw invalidClient(
    'Client authentication is required: HTTP Basic, client_id and client_secret in the body, or a client_assertion (private_key_jwt)',
    false,
  );
}

function basicCredentials(authorization: string): ClientCredentials {
  const match = /^Basic\s+([A-Za-z0-9+/]+={0,2})\s*$/i.exec(authorization);
  const decoded = match?.[1] && match[1].length <= MAX_CREDENTIAL_LENGTH ? Buffer.from(match[1], 'base64').toString('utf8') : '';
  const colon = decoded.indexOf(':');
  if (colon < 1) throw invalidClient('The Authorization header must be Basic base64(client_id:client_secret)', true);
  try {
    // RFC 6749 §2.3.1: each part is form-urlencoded before they are joined.
    const clientId = decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' '));
    const secret = decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' '));
    return { method: 'basic', clientId, secret };
  } catch {
    throw invalidClient(
      'The Authorization header must be Basic base64(client_id:client_secret), each part form-urlencoded',
      true,
    );
  }
}

function assertionCredentials(form: TokenRequest): ClientCredentials {
  if (form.client_assertion_type !== JWT_BEARER_ASSERTION) {
    throw invalidRequest(`client_assertion_type must be ${JWT_BEARER_ASSERTION}`);
  }
  const assertion = form.client_assertion;
  if (assertion === undefined) throw invalidRequest('client_assertion is required with client_assertion_type');
  let subject: unknown;
  try {
    subject = assertion.length <= MAX_CREDENTIAL_LENGTH ? decodeJwt(assertion).sub : undefined;
  } catch {
    subject = undefined;
  }
  if (typeof subject !== 'string') throw invalidClient('invalid client assertion', false);
  if (form.client_id !== undefined && form.client_id !== subject) {
    throw invalidRequest('client_id in the body is not the subject of the client_assertion');
  }
  return { method: 'jwt', clientId: subject, assertion };
}
