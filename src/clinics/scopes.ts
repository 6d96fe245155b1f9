/**
 * What a restricted credential (API key or OAuth client) may do: `<resource>:read` or
 * `<resource>:write` per resource, write implying read. A credential issued without scopes keeps
 * full access (its `scopes` is null).
 */
export const SCOPE_RESOURCES = ['practitioners', 'patients', 'orders', 'refills', 'carriers', 'webhooks', 'formulary'] as const;
export type ScopeResource = (typeof SCOPE_RESOURCES)[number];
export type ScopeAccess = 'read' | 'write';
export type Scope = `${ScopeResource}:${ScopeAccess}`;

export const ALL_SCOPES: readonly Scope[] = SCOPE_RESOURCES.flatMap((resource) => [
  `${resource}:read` as const,
  `${resource}:write` as const,
]);

const KNOWN = new Set<string>(ALL_SCOPES);

export function isScope(value: string): value is Scope {
  return KNOWN.has(value);
}

/** Whether `granted` (null: full access) allows `needed`; `<resource>:write` implies `<resource>:read`. */
export function allows(granted: readonly Scope[] | null | undefined, needed: Scope): boolean {
  if (granted === null || granted === undefined) return true;
  if (granted.includes(needed)) return true;
  const [resource = '', access] = needed.split(':');
  return access === 'read' && granted.includes(`${resource}:write` as Scope);
}

/** Scopes as stored (a JSON array of text, or null for full access): unique, in ALL_SCOPES order. */
export function storedScopes(scopes: readonly Scope[] | null | undefined): string | null {
  if (scopes === null || scopes === undefined) return null;
  return JSON.stringify(ALL_SCOPES.filter((scope) => scopes.includes(scope)));
}

/** A row's `scopes` read back: null (full access), or the known scopes it lists (an unknown one grants nothing). */
export function parseStoredScopes(stored: string | null): Scope[] | null {
  if (stored === null) return null;
  const parsed: unknown = JSON.parse(stored);
  return Array.isArray(parsed) ? parsed.filter((value): value is Scope => typeof value === 'string' && isScope(value)) : [];
}
