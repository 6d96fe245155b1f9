import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { applyDeprecationHeaders, routeDeprecationOf } from '../deprecations/deprecation-headers.js';
import { fieldError } from '../errors.js';

/** The request header that pins a version, and the response header that names the version that answered. */
export const API_VERSION_HEADER = 'Api-Version';

/**
 * Every version of the API this server answers, oldest first (semantic versioning: the spec's
 * Versioning section). A release adds its version here; a version leaves only with a major release
 * after its notice period (docs/versioning.md).
 */
export const SUPPORTED_API_VERSIONS = ['1.0.0', '1.1.0', '1.2.0', '1.3.0', '1.4.0', '1.5.0'] as const;

/** The newest version: what answers a request that pins none. */
export const CURRENT_API_VERSION: string = SUPPORTED_API_VERSIONS[SUPPORTED_API_VERSIONS.length - 1] ?? '1.5.0';

/** `1`, `1.0` or `1.0.0`: numbers without leading zeros, at most 6 digits each (semver's core, no pre-release). */
const PIN = /^(0|[1-9]\d{0,5})(?:\.(0|[1-9]\d{0,5})(?:\.(0|[1-9]\d{0,5}))?)?$/;

const SUPPORTED = `supported versions: ${SUPPORTED_API_VERSIONS.join(', ')}`;

/** The header as the OpenAPI document shows it on every operation of the APIs (openapi.ts). */
export const ApiVersionHeaderSchema = Type.String({
  pattern: PIN.source,
  maxLength: 20,
  description: [
    `Optional. Pins the API version that answers: an exact one such as \`1.0.0\`, or \`1.4\` / \`1\` for the newest`,
    `matching. Without it the newest (${CURRENT_API_VERSION}) answers. Every response names the version that answered`,
    `in its own \`Api-Version\` header. A version this server does not answer is refused with 400 VALIDATION_ERROR naming the supported ones (${SUPPORTED}).`,
  ].join(' '),
});

/**
 * The version a pin selects: undefined when none is pinned (the newest answers), null when the
 * header is malformed, sent more than once, or names no version this server answers.
 */
export function pinnedVersion(value: string | string[] | undefined): string | null | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) return null;
  const match = PIN.exec(value.replace(/^[ \t]+|[ \t]+$/g, ''));
  if (!match) return null;
  const [, major, minor, patch] = match;
  const matching = SUPPORTED_API_VERSIONS.filter((version) => {
    const [m, n, p] = version.split('.');
    return m === major && (minor === undefined || n === minor) && (patch === undefined || p === patch);
  });
  return matching[matching.length - 1] ?? null;
}

/** The version that answers a request: the one it pins, or the newest (also when its pin is bad: it is refused later). */
export function answeringVersion(request: FastifyRequest): string {
  return pinnedVersion(request.headers['api-version']) ?? CURRENT_API_VERSION;
}

/**
 * First thing for every request of the APIs (partner and operator), refusals included: the
 * `Api-Version` that answers (the pinned one, or the newest when none or a bad one is pinned: the
 * refusal of a bad pin comes after the guard, `acceptApiVersion`), and, on a deprecated route, its
 * `Deprecation`, `Sunset` and `Link` headers. No I/O, never throws.
 */
export function announceApiVersion(request: FastifyRequest, reply: FastifyReply): void {
  reply.header(API_VERSION_HEADER, answeringVersion(request));
  const deprecation = routeDeprecationOf(request);
  if (deprecation) applyDeprecationHeaders(reply, deprecation);
}

/**
 * Once the guard has accepted the credential: a pin this server cannot answer is refused (400
 * naming the supported versions; the header is named as the Idempotency-Key's is), and the use of
 * a deprecated route is counted for the credential (in memory: deprecations/usage-tally.ts).
 */
export function acceptApiVersion(ctx: Pick<AppContext, 'deprecationUsage'>, request: FastifyRequest, reply: FastifyReply): void {
  const header = request.headers['api-version'];
  if (header !== undefined && pinnedVersion(header) === null) throw fieldError(API_VERSION_HEADER, pinProblem(header));
  // Only a deprecated route's answer has Deprecation by now: other requests skip the route lookup
  // (request.routeOptions builds an object at every read).
  if (request.partner === undefined || !reply.hasHeader('Deprecation')) return;
  const deprecation = routeDeprecationOf(request);
  if (deprecation) ctx.deprecationUsage.record(deprecation.code, request.partner);
}

function pinProblem(value: string | string[]): string {
  // Node joins a header sent twice with ", ".
  if (Array.isArray(value) || value.includes(',')) return `must be sent once; ${SUPPORTED}`;
  if (!PIN.test(value.replace(/^[ \t]+|[ \t]+$/g, ''))) return `must be a version such as 1.0.0, 1.0 or 1; ${SUPPORTED}`;
  return `names a version this server does not answer; ${SUPPORTED}`;
}
