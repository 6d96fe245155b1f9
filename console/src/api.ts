/**
 * The operator API, called on this origin with the session cookie. Every failure becomes an
 * ApiError carrying what the envelope said (message, code, field details) and the request id, which
 * the pages show so that staff can quote it to whoever reads the server's logs.
 */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string,
    readonly requestId: string | null,
    readonly details: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

type Listener = () => void;
const signedOutListeners = new Set<Listener>();

/** Called whenever the API answers 401: the session has ended (idle, disabled, signed out elsewhere). */
export function onSignedOut(listener: Listener): () => void {
  signedOutListeners.add(listener);
  return () => signedOutListeners.delete(listener);
}

interface Envelope<T> {
  success: boolean;
  data?: T;
  message?: string;
  error?: { message: string; code: string; request_id?: string; details?: Record<string, string> };
}

/** The sign-in paths of the console and the portal: their 401 is a refused sign-in, not a session that ended. */
const SESSION_PATHS: ReadonlySet<string> = new Set(['/api/admin/session', '/api/portal/session']);

/**
 * Whether a 401 means the session has ended. Not on a sign-in path, and not when it names the TOTP
 * code (a wrong second-factor code while enrolling or disabling it: the session is still alive).
 */
function endsSession(path: string, details: Record<string, string> | undefined): boolean {
  return !SESSION_PATHS.has(path) && details?.totp_code === undefined;
}

export async function api<T>(method: Method, path: string, body?: unknown): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      credentials: 'same-origin',
      headers: { accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch {
    throw new ApiError('The server cannot be reached: check the connection and try again.', 0, 'NETWORK_ERROR', null);
  }
  const requestId = response.headers.get('x-request-id');
  let envelope: Envelope<T> | null = null;
  try {
    envelope = (await response.json()) as Envelope<T>;
  } catch {
    envelope = null;
  }
  if (response.ok && envelope?.success) return envelope.data as T;
  const error = envelope?.error;
  if (response.status === 401 && endsSession(path, error?.details)) for (const listener of signedOutListeners) listener();
  throw new ApiError(
    error?.message ?? `The server answered ${response.status} ${response.statusText}`,
    response.status,
    error?.code ?? 'HTTP_ERROR',
    error?.request_id ?? requestId,
    error?.details ?? {},
  );
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** What a call gives besides its method and path, as the generated types will take it. */
export interface CallOptions {
  /** The values of the path's `{name}`s. */
  path?: Record<string, string>;
  /** The query string (empty values left out). */
  query?: Record<string, string | number | undefined | null>;
  body?: unknown;
}

/**
 * A call written as the front end's generated types take it (branch ptypes: `api(method,
 * '/api/portal/keys/{apiKeyId}/roll', { path, query, body })`, the documented path as written in the
 * OpenAPI document), its answer typed by hand (console/src/portal/types.ts) until the portal's
 * operations are in the generated document. At that merge, `apiCall<T>(` becomes `api(`.
 */
export function apiCall<T>(method: Method, template: string, options: CallOptions = {}): Promise<T> {
  const url = template.replace(/\{([^}]+)\}/g, (_whole, name: string) => {
    const value = options.path?.[name];
    if (value === undefined) throw new Error(`apiCall(): no value for {${name}} of ${template}`);
    return encodeURIComponent(value);
  });
  return api<T>(method, url + query(options.query ?? {}), options.body);
}

/** A query string from the filters that are set (empty values left out). */
export function query(params: Record<string, string | number | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== '') search.set(name, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

/** A page of an operator list (keyset pagination). */
export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

export type Role = 'admin' | 'pharmacist';

export interface Session {
  staff_id: string;
  email: string;
  name: string;
  role: Role;
  idle_timeout_minutes: number;
  /** Whether sign-in asks for an authenticator's code (docs/portal.md: the console's accounts get TOTP too). */
  totp_enabled: boolean;
  /** REQUIRE_ADMIN_TOTP asks this admin for it and it is not on yet: only the Account page works until it is. */
  totp_required: boolean;
}
