import type { FastifyRequest, FastifySchema } from 'fastify';
import { allows, isScope, type Scope } from '../clinics/scopes.js';
import { forbidden } from '../errors.js';
import type { PartnerIdentity } from '../partner-identity.js';

/** Where a partner route declares the scope it needs: its schema, which the OpenAPI document shows as is. */
export const REQUIRED_SCOPE = 'x-required-scope';

declare module 'fastify' {
  interface FastifySchema {
    /** The scope a restricted credential needs for this partner route (http/scope-guard.ts). */
    'x-required-scope'?: Scope;
  }
}

/** The scope a route's schema declares, if any. */
export function requiredScopeOf(schema: FastifySchema | undefined): Scope | undefined {
  const scope: unknown = schema?.[REQUIRED_SCOPE];
  return typeof scope === 'string' && isScope(scope) ? scope : undefined;
}

/**
 * Refuses, with 403 FORBIDDEN naming the missing scope, a restricted credential (an API key or an
 * OAuth client issued with scopes) on a route its scopes do not cover. Called by the partner guard
 * once the credential is accepted, in onRequest: before the body is read or validated, so a refusal
 * never depends on what the body says. A credential with full access (`scopes` null or absent)
 * passes everywhere; a partner route that declares no scope is closed to restricted credentials
 * (test/http/scopes.test.ts holds every route to declaring one). A request that matched no route
 * passes, so that it gets its 404 or 405.
 */
export function assertScope(request: FastifyRequest, identity: PartnerIdentity): void {
  if (identity.scopes === null || identity.scopes === undefined) return;
  if (request.routeOptions.url === undefined) return;
  const credential = identity.oauthClientId !== undefined ? 'access token' : 'API key';
  const needed = requiredScopeOf(request.routeOptions.schema);
  if (needed === undefined) throw forbidden(`Forbidden: this route is not open to a restricted ${credential}`);
  if (!allows(identity.scopes, needed)) throw forbidden(`Forbidden: this ${credential} lacks the scope ${needed}`);
}
