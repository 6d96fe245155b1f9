import net from 'node:net';
import { Agent, request } from 'undici';
import {
  checkHostIsPublic,
  guardedLookup,
  REFUSED_CODE,
  systemResolveAll,
  type ResolveAll,
  type UrlPolicy,
} from './url-safety.js';
import type { SendOutcome, SendOutcomeKind, WebhookSender } from './types.js';

export const RESPONSE_EXCERPT_BYTES = 1024;
export const USER_AGENT = 'PartnerFulfillmentAPI-Webhooks/1.0';
const MAX_ERROR_LENGTH = 500;

/**
 * Sends webhooks over HTTP(S) with undici: no redirects followed (a 3xx is a failure), one timeout
 * for the whole attempt, and, unless the policy allows internal targets, every connection made to
 * an address checked by the SSRF guard (literal IPs checked here, names in the connection's lookup).
 */
export function createHttpSender(options: { policy: UrlPolicy; timeoutMs: number; resolve?: ResolveAll }): WebhookSender {
  const resolve = options.resolve ?? systemResolveAll;
  const agent = new Agent({
    connect: { lookup: guardedLookup(options.policy, resolve), timeout: options.timeoutMs },
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
    keepAliveTimeout: 4_000,
  });

  return {
    async send({ url, headers, body }) {
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      const failure = (kind: Exclude<SendOutcomeKind, 'success' | 'http_error'>, error: string): SendOutcome => ({
        ok: false,
        kind,
        statusCode: null,
        durationMs: elapsed(),
        responseBody: null,
        error: error.slice(0, MAX_ERROR_LENGTH),
        retryAfter: null,
      });
      let target: URL;
      try {
        target = new URL(url);
      } catch {
        return failure('refused', 'invalid URL');
      }
      const host = target.hostname.replace(/^\[|\]$/g, '');
      // The connection's lookup is not consulted for a literal IP address: check it here.
      if (net.isIP(host) !== 0) {
        const problem = await checkHostIsPublic(host, options.policy, resolve);
        if (problem) return failure('refused', `refused: webhook_url ${problem} (SSRF protection)`);
      }
      const signal = AbortSignal.timeout(options.timeoutMs);
      try {
        const response = await request(target, {
          method: 'POST',
          dispatcher: agent,
          headers: { ...headers, 'content-type': 'application/json', 'user-agent': USER_AGENT },
          body,
          signal,
        });
        const statusCode = response.statusCode;
        const responseBody = await readExcerpt(response.body);
        const ok = statusCode >= 200 && statusCode < 300;
        const retryAfter = response.headers['retry-after'];
        return {
          ok,
          kind: ok ? 'success' : 'http_error',
          statusCode,
          durationMs: elapsed(),
          responseBody,
          error: null,
          retryAfter: typeof retryAfter === 'string' ? retryAfter.slice(0, 100) : null,
        };
      } catch (error) {
        if (signal.aborted || TIMEOUT_CODES.has(errorCode(error) ?? '')) {
          return failure('timeout', `timed out after ${options.timeoutMs} ms`);
        }
        if (errorCode(error) === REFUSED_CODE) return failure('refused', describeNetworkError(error));
        return failure('network_error', describeNetworkError(error));
      }
    },
    close: () => agent.close(),
  };
}

/** Reads at most RESPONSE_EXCERPT_BYTES of a body, then drops the rest of the stream. */
async function readExcerpt(body: AsyncIterable<Buffer> & { destroy(): void }): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= RESPONSE_EXCERPT_BYTES) break;
    }
  } catch {
    // A body cut short (timeout, reset) after the status arrived: keep what was read.
  } finally {
    body.destroy();
  }
  if (size === 0) return null;
  // PostgreSQL text cannot hold NUL characters.
  return Buffer.concat(chunks).subarray(0, RESPONSE_EXCERPT_BYTES).toString('utf8').replaceAll('\u0000', '');
}

/** undici's own timeouts (connect, headers, body), which may fire before the attempt's signal. */
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/** The code of an error or of its cause (undici wraps the connection's errors). */
function errorCode(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const cause = (error as { cause?: unknown }).cause;
  const code = (cause instanceof Error ? (cause as { code?: unknown }).code : undefined) ?? (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

function describeNetworkError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  const inner = cause instanceof Error ? cause : error;
  const code = (inner as { code?: unknown }).code ?? (error as { code?: unknown }).code;
  const text = inner.message || error.message || error.name;
  return typeof code === 'string' && !text.includes(code) ? `${code}: ${text}` : text;
}
