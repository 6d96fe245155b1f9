import type { ApiPaths, CallArgs, DataOf, HttpMethod, Operation, OperatorData, PathOf } from './api-types';
import type { components } from './generated/operator';

/**
 * The operator API and the portal API, called on this origin with the session cookie. Every failure
 * becomes an ApiError carrying what the envelope said (message, code, field details) and the request id, which
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

/** What an answer's JSON may hold, read warily (a proxy's own error page is neither envelope). */
interface Envelope {
  success?: boolean;
  data?: unknown;
  error?: Partial<components['schemas']['ErrorEnvelope']['error']>;
}

/**
 * Calls a documented operation: `api('GET', '/api/admin/clinics/{clinicId}', { path: { clinicId } })`.
 * The method and path must be the OpenAPI document's, and the path parameters, query names, body
 * and the answer's `data` are that operation's generated types (api-types.ts): a call the server
 * does not document, or a body it would refuse by shape, does not compile.
 */
export async function api<M extends HttpMethod, P extends PathOf<M> & keyof ApiPaths>(
  method: M,
  path: P,
  ...[options]: CallArgs<Operation<P, M>>
): Promise<DataOf<Operation<P, M>>> {
  // The types above checked the call; what is left is filling in the URL.
  const given = (options ?? {}) as { path?: Record<string, string>; query?: QueryValues; body?: unknown };
  const url = fillPath(path, given.path ?? {}) + query(given.query ?? {});
  return (await send(method, url, given.body, SIGN_IN_PATHS.includes(path))) as DataOf<Operation<P, M>>;
}

/** Where a 401 means a failed sign-in or no session yet, not a session that has ended. */
const SIGN_IN_PATHS: string[] = ['/api/admin/session', '/api/portal/session'];

/** `/api/admin/clinics/{clinicId}` with `{clinicId: 'c 1'}` → `/api/admin/clinics/c%201`. */
function fillPath(template: string, params: Record<string, string>): string {
  return template.replace(/\{([^}]+)\}/g, (_whole, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`api(): no value for {${name}} of ${template}`);
    return encodeURIComponent(value);
  });
}

async function send(method: HttpMethod, path: string, body: unknown, signingIn: boolean): Promise<unknown> {
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
  let envelope: Envelope | null = null;
  try {
    envelope = (await response.json()) as Envelope;
  } catch {
    envelope = null;
  }
  if (response.ok && envelope?.success) return envelope.data;
  throw failureOf(response, envelope, signingIn);
}

/**
 * Downloads a documented operation's CSV answer (`Accept: text/csv`), and has the browser save it
 * under the name the server gives (Content-Disposition), or `fallbackName`. A refusal is an ApiError,
 * as for `api()`.
 */
export async function downloadCsv(
  path: PathOf<'GET'> & keyof ApiPaths,
  params: Record<string, string>,
  fallbackName: string,
): Promise<void> {
  let response: Response;
  try {
    response = await fetch(fillPath(path, params), { credentials: 'same-origin', headers: { accept: 'text/csv' } });
  } catch {
    throw new ApiError('The server cannot be reached: check the connection and try again.', 0, 'NETWORK_ERROR', null);
  }
  if (!response.ok) {
    let envelope: Envelope | null = null;
    try {
      envelope = (await response.json()) as Envelope;
    } catch {
      envelope = null;
    }
    throw failureOf(response, envelope, false);
  }
  const named = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1];
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = named ?? fallbackName;
  document.body.append(link);
  link.click();
  link.remove();
  // After the click has started the download.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

/** The ApiError of an answer that is not a success: what the envelope said, and the request id. */
function failureOf(response: Response, envelope: Envelope | null, signingIn: boolean): ApiError {
  const requestId = response.headers.get('x-request-id');
  if (response.status === 401 && !signingIn) for (const listener of signedOutListeners) listener();
  const error = envelope?.error;
  return new ApiError(
    error?.message ?? `The server answered ${response.status} ${response.statusText}`,
    response.status,
    error?.code ?? 'HTTP_ERROR',
    error?.request_id ?? requestId,
    error?.details ?? {},
  );
}

type QueryValues = Record<string, string | number | boolean | undefined | null>;

/** A query string from the filters that are set (empty values left out). */
export function query(params: QueryValues): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== '') search.set(name, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

/** The signed-in staff member, as GET /api/admin/session answers. */
export type Session = OperatorData<'getOperatorSession'>;

export type Role = Session['role'];
