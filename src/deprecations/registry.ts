/**
 * What the API still answers but will stop answering: every deprecated route, request parameter
 * and response field, with when it was deprecated, when it goes away (its sunset) and where the
 * migration guide is. Code, not data: an entry ships with the release that deprecates the thing, is
 * announced in CHANGELOG.md the same day, and is removed together with the thing after its sunset.
 * How to add one: docs/versioning.md "Deprecating something".
 *
 * Every answer that uses a deprecated thing carries `Deprecation`, `Sunset` and `Link`
 * (deprecation-headers.ts); the OpenAPI document marks it `deprecated: true`; its use is counted per
 * credential (usage-tally.ts) so that operators see who still depends on it (GET /api/admin/deprecations).
 *
 * @see https://www.rfc-editor.org/rfc/rfc9745 (Deprecation), https://www.rfc-editor.org/rfc/rfc8594 (Sunset)
 */
import { isCalendarDate } from '../shared/calendar-date.js';

/** A route (`method` + `route` pattern), or a request parameter or response field (`name`) of one. */
export type DeprecationKind = 'route' | 'parameter' | 'field';

export interface DeprecationEntry {
  /** Stable, lower_snake_case: what operators and the usage table know it by. */
  readonly code: string;
  readonly kind: DeprecationKind;
  /** The route, or the route whose parameter or field it is: method and Fastify pattern (`/api/external/webhook/:webhookId`). */
  readonly method: string;
  readonly route: string;
  /** For a parameter or field: its name as on the wire (`clinic_id`, `data.total`); absent for a route. */
  readonly name?: string;
  /** The day it was deprecated (YYYY-MM-DD, from 00:00:00 UTC): the `Deprecation` header. */
  readonly deprecated_at: string;
  /** The day it stops working (YYYY-MM-DD, from 00:00:00 UTC): the `Sunset` header. Never earlier than `deprecated_at`. */
  readonly sunset_at: string;
  /**
   * The migration guide, as an HTML page (`Link: <…>; rel="deprecation"; type="text/html"`): a path
   * on this server (a relative reference, resolved against the request's URL: RFC 8288 §3.1) or an
   * absolute URL. Never built from the request's Host header.
   */
  readonly link: string;
  /** What to use instead, in a few words (shown in the OpenAPI description and the operator's list). */
  readonly replacement: string;
}

/**
 * The registry. Dates are days in UTC; the notice period is at least 6 months (the spec's
 * Versioning section), which the registry's test holds.
 */
export const DEPRECATIONS = [
  {
    code: 'webhook_delete_with_body',
    kind: 'route',
    method: 'DELETE',
    route: '/api/external/webhook',
    deprecated_at: '2026-11-25',
    sunset_at: '2027-05-25',
    // The deprecated operation in the reference page (/docs, swagger-ui's deep link): its description
    // is the migration guide; docs/webhooks.md "Migrating to DELETE by id" has the long form.
    link: '/docs#/Webhooks/deleteWebhook',
    replacement: 'DELETE /api/external/webhook/{webhookId} (the id in the path, no body)',
  },
  {
    // The original system's published OpenAPI, and the clients generated from it, delete with
    // `DELETE /api/external/webhook?id=<uuid>` (issue 22): accepted so that a partner moving from it is
    // served as promised, but as a form of the route deprecated above, so deprecated since the same
    // day, with the same sunset and guide. Its uses are counted apart (the route's entry counts both forms).
    code: 'webhook_delete_with_query_id',
    kind: 'parameter',
    method: 'DELETE',
    route: '/api/external/webhook',
    name: 'id',
    deprecated_at: '2026-11-25',
    sunset_at: '2027-05-25',
    link: '/docs#/Webhooks/deleteWebhook',
    replacement: 'DELETE /api/external/webhook/{webhookId} (the id in the path, no body)',
  },
] as const satisfies readonly DeprecationEntry[];

export type DeprecationCode = (typeof DEPRECATIONS)[number]['code'];
/** The codes of route entries: what a route's `config.deprecation` may name. */
export type RouteDeprecationCode = Extract<(typeof DEPRECATIONS)[number], { kind: 'route' }>['code'];

/** A URI reference fit for a Link header: no spaces, controls, angle brackets or quotes. */
const LINK = /^[^\s\p{Cc}<>"\\]+$/u;

/** 00:00:00 UTC of a YYYY-MM-DD day, in milliseconds; NaN when it is not a real day. */
export function dayStart(day: string): number {
  return isCalendarDate(day) ? Date.parse(`${day}T00:00:00Z`) : Number.NaN;
}

/**
 * The problems of a registry, one line each (empty when it is sound): what RFC 9745 and RFC 8594
 * require of the headers it makes (real days, a sunset never before the deprecation, a usable
 * link), unique codes, and a name for every parameter or field. Checked when this module loads.
 */
export function registryProblems(entries: readonly DeprecationEntry[]): string[] {
  const problems: string[] = [];
  const codes = new Set<string>();
  for (const entry of entries) {
    const of = `deprecation ${entry.code}`;
    if (!/^[a-z][a-z0-9_]*$/.test(entry.code)) problems.push(`${of}: the code must be lower_snake_case`);
    if (codes.has(entry.code)) problems.push(`${of}: the code is used twice`);
    codes.add(entry.code);
    const deprecated = dayStart(entry.deprecated_at);
    const sunset = dayStart(entry.sunset_at);
    if (Number.isNaN(deprecated)) problems.push(`${of}: deprecated_at must be a day, YYYY-MM-DD`);
    if (Number.isNaN(sunset)) problems.push(`${of}: sunset_at must be a day, YYYY-MM-DD`);
    if (sunset < deprecated) problems.push(`${of}: sunset_at is earlier than deprecated_at (RFC 9745 §3)`);
    if (!LINK.test(entry.link)) problems.push(`${of}: link must be a URI reference without spaces, quotes or <>`);
    if (!entry.route.startsWith('/')) problems.push(`${of}: route must be a path pattern`);
    if (entry.kind !== 'route' && !entry.name) problems.push(`${of}: a ${entry.kind} needs its name`);
    if (entry.kind === 'route' && entry.name !== undefined) problems.push(`${of}: a route has no name`);
  }
  return problems;
}

const problems = registryProblems(DEPRECATIONS);
if (problems.length > 0) throw new Error(`The deprecation registry is inconsistent:\n${problems.join('\n')}`);

const BY_CODE: ReadonlyMap<string, DeprecationEntry> = new Map(DEPRECATIONS.map((entry) => [entry.code, entry]));

/** The entry of a code; the type of `code` guarantees there is one. */
export function deprecationOf(code: DeprecationCode): DeprecationEntry {
  const entry = BY_CODE.get(code);
  if (!entry) throw new Error(`Unknown deprecation ${code}`);
  return entry;
}
