import type { FastifySchema } from 'fastify';
import { deprecationOf, type DeprecationCode, type DeprecationEntry, type RouteDeprecationCode } from './registry.js';

/** The sentence that opens a deprecated operation's (or property's) description in the OpenAPI document. */
export function deprecationNotice(entry: DeprecationEntry): string {
  return [
    `**Deprecated** since ${entry.deprecated_at}; it stops working on ${entry.sunset_at} (its sunset).`,
    `Use ${entry.replacement} instead. Until then every answer that uses it carries the \`Deprecation\`,`,
    '`Sunset` and `Link` headers (RFC 9745, RFC 8594).',
  ].join(' ');
}

/**
 * A deprecated route's options: `config.deprecation` names its registry entry (every answer then
 * carries the headers and every use is counted: http/api-version.ts), and its schema says
 * `deprecated: true` with the notice before its own description (the OpenAPI document).
 *
 * ```ts
 * app.delete('/api/external/webhook', deprecatedRoute('webhook_delete_with_body', { schema: {…} }), handler);
 * ```
 */
export function deprecatedRoute<T extends { schema: FastifySchema; config?: object }>(
  code: RouteDeprecationCode,
  options: T,
): T & { config: { deprecation: RouteDeprecationCode } } {
  const notice = deprecationNotice(deprecationOf(code));
  const description = options.schema.description;
  return {
    ...options,
    config: { ...options.config, deprecation: code },
    schema: { ...options.schema, deprecated: true, description: description ? `${notice}\n\n${description}` : notice },
  };
}

/**
 * A deprecated request parameter or response field's schema: `deprecated: true` and the notice in
 * its description. The handler that sees it in use calls `markDeprecatedUse` (deprecation-headers.ts).
 */
export function deprecatedProperty<S extends { description?: string }>(
  deprecation: DeprecationCode | DeprecationEntry,
  schema: S,
): S {
  const notice = deprecationNotice(typeof deprecation === 'string' ? deprecationOf(deprecation) : deprecation);
  return { ...schema, deprecated: true, description: schema.description ? `${notice} ${schema.description}` : notice };
}
