import type { RegisteredRoute } from './routes-index.js';

/** The partner API's prefix: only there is an unknown route answered with the nearest known one. */
const PARTNER_PREFIX = '/api/external/';
/** Edits (characters of a segment, or whole segments) beyond which a route is not "near". */
const MAX_DISTANCE = 4;

/**
 * The partner route nearest to an unknown path, written as the reference writes it
 * (`GET /api/external/carriers/{carrierId}/services`), or undefined when none is near. A `:param`
 * segment matches any one segment; a path of another length costs a whole segment per segment.
 * Hidden routes (`schema.hide`) are not suggested. Routes of the request's method win a tie.
 */
export function nearestPartnerRoute(routes: readonly RegisteredRoute[], method: string, path: string): string | undefined {
  if (!path.startsWith(PARTNER_PREFIX)) return undefined;
  const asked = segmentsOf(path);
  let best: { route: RegisteredRoute; cost: number } | undefined;
  for (const route of routes) {
    if (!route.url.startsWith(PARTNER_PREFIX) || route.schema?.hide === true || route.method === 'HEAD') continue;
    const cost = pathDistance(asked, segmentsOf(route.url)) + (route.method === method ? 0 : 0.5);
    if (best === undefined || cost < best.cost) best = { route, cost };
  }
  if (best === undefined || best.cost > MAX_DISTANCE) return undefined;
  return `${best.route.method} ${best.route.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`;
}

function segmentsOf(path: string): string[] {
  return path.split('/').filter((segment) => segment !== '');
}

function pathDistance(asked: string[], known: string[]): number {
  let cost = Math.abs(asked.length - known.length) * MAX_DISTANCE;
  for (let i = 0; i < Math.min(asked.length, known.length); i++) {
    const pattern = known[i] ?? '';
    if (pattern.startsWith(':')) continue;
    cost += editDistance((asked[i] ?? '').toLowerCase(), pattern.toLowerCase());
  }
  return cost;
}

/** Levenshtein distance, cut short: a path segment the router did not match is at most a URL long. */
function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  if (Math.abs(a.length - b.length) > MAX_DISTANCE) return MAX_DISTANCE + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
