import { parseCookie } from 'cookie';
import type { FastifyRequest } from 'fastify';

/**
 * One cookie of a request, parsed from its Cookie header when asked. Only the console's routes and
 * the operator guard read a cookie, so no hook parses cookies on every request (which
 * @fastify/cookie's global hooks did, on partner calls too; docs/performance.md). Setting cookies
 * is @fastify/cookie's, registered in the staff routes' own scope (staff/staff.routes.ts).
 */
export function requestCookie(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  if (header === undefined || header === '') return undefined;
  return parseCookie(header)[name];
}
