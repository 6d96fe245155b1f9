/** The resources a restricted key's scopes name (src/clinics/scopes.ts): `<resource>:read` or `<resource>:write`. */
export const SCOPE_RESOURCES = ['practitioners', 'patients', 'orders', 'refills', 'carriers', 'webhooks', 'formulary'] as const;
export type ScopeResource = (typeof SCOPE_RESOURCES)[number];
export type Scope = `${ScopeResource}:${'read' | 'write'}`;
