import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { unauthorized } from '../errors.js';

/** `Authorization: Bearer <ADMIN_TOKEN>` on every /api/admin request, compared in constant time. */
export function guardAdminRequest(config: Config, request: FastifyRequest): void {
  const header = request.headers.authorization;
  const match = typeof header === 'string' ? /^Bearer\s+(.+)$/i.exec(header.trim()) : null;
  if (!match?.[1]) throw unauthorized('missing operator bearer token');
  if (!constantTimeEqual(match[1], config.adminToken)) throw unauthorized('invalid operator token');
}

function constantTimeEqual(a: string, b: string): boolean {
  // Hash first so that the comparison takes the same time whatever the lengths.
  const left = createHash('sha256').update(a).digest();
  const right = createHash('sha256').update(b).digest();
  return timingSafeEqual(left, right);
}
