import type { FastifyRequest } from 'fastify';

/**
 * preValidation of a route whose body may be left out: no body is validated (and handled) as `{}`.
 * The OpenAPI document marks such a route's request body as not required (openapi.ts).
 */
export async function emptyBodyWhenAbsent(request: FastifyRequest): Promise<void> {
  request.body ??= {};
}
