/* What the operator API answers about clinics, their credentials and formulary, as generated from its OpenAPI document. */
import type { Check, ListsAll, OperatorData } from '../../api-types';

export type Clinic = OperatorData<'getOperatorClinic'>;

/** What the operator sees of a key, never the key itself (`key_last4` is null for keys issued before it was kept; `scopes` null: full access). */
export type ApiKey = OperatorData<'listOperatorClinicApiKeys'>['api_keys'][number];

export type IssuedApiKey = OperatorData<'createOperatorClinicApiKey'>;

/** The answer of a roll: the successor, shown once, and when the rolled key stops working. */
export type RolledApiKey = OperatorData<'rollOperatorApiKey'>;

export type Environment = ApiKey['environment'];

/** A scope a restricted key or an OAuth client is given (src/clinics/scopes.ts): `<resource>:read` or `<resource>:write`. */
export type Scope = NonNullable<ApiKey['scopes']>[number];
export type ScopeResource = Scope extends `${infer Resource}:${string}` ? Resource : never;

/** The resources, in the order the scopes picker shows them: each one the API names, once (checked below). */
export const SCOPE_RESOURCES = [
  'practitioners',
  'patients',
  'orders',
  'refills',
  'carriers',
  'webhooks',
  'formulary',
] as const satisfies readonly ScopeResource[];
export type ScopeResourcesListed = Check<ListsAll<ScopeResource, typeof SCOPE_RESOURCES>>;

export type Medication = OperatorData<'listOperatorClinicMedications'>['medications'][number];

/** An OAuth client as the operator API lists it (src/oauth/oauth.schemas.ts): never its secret. */
export type OAuthClient = OperatorData<'listOperatorClinicOAuthClients'>['oauth_clients'][number];

/** A client just created: its secret, this once (null for a private_key_jwt client). */
export type IssuedOAuthClient = OperatorData<'createOperatorClinicOAuthClient'>;
