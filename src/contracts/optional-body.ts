import type { FastifyRequest } from 'fastify';

type BodyHook = (request: FastifyRequest) => Promise<void>;

/** The preValidation hooks after which a route's body may be left out (openapi.ts marks its body not required). */
const OPTIONAL_BODY_HOOKS = new WeakSet<BodyHook>();

/** Marks a preValidation hook as one that lets the route's body be left out (it fills one in). */
export function optionalBodyHook(hook: BodyHook): BodyHook {
  OPTIONAL_BODY_HOOKS.add(hook);
  return hook;
}

/** True for a hook made with optionalBodyHook: the OpenAPI document says the route's body is not required. */
export function isOptionalBodyHook(hook: unknown): boolean {
  return typeof hook === 'function' && OPTIONAL_BODY_HOOKS.has(hook as BodyHook);
}

/**
 * preValidation of a route whose body may be left out: no body is validated (and handled) as `{}`.
 * The OpenAPI document marks such a route's request body as not required (openapi.ts).
 */
export const emptyBodyWhenAbsent = optionalBodyHook(async (request: FastifyRequest): Promise<void> => {
  request.body ??= {};
});
