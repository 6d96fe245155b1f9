/** Row types of the OAuth feature (migration 012). Column conventions: see db/database.ts. */

export interface OAuthClientTable {
  /** The client_id itself (a UUID): not a secret, sent with every token request. */
  id: string;
  clinic_id: string;
  environment: string;
  /** SHA-256 (hex) of the client secret; null for a client that authenticates with a signed JWT (private_key_jwt). */
  secret_hash: string | null;
  /** The client's public keys (a JWK Set, JSON) for private_key_jwt; null for a client with a secret. */
  jwks: string | null;
  /** What the client's tokens may do: a JSON array of scopes (clinics/scopes.ts), never empty. */
  scopes: string;
  created_at: string;
  revoked_at: string | null;
}

/**
 * The `jti` of every client assertion (private_key_jwt) accepted, kept until the assertion expires,
 * so that one cannot be replayed, on any instance.
 */
export interface OAuthClientAssertionTable {
  client_id: string;
  jti: string;
  expires_at: string;
}

export interface OAuthTables {
  oauth_clients: OAuthClientTable;
  oauth_client_assertions: OAuthClientAssertionTable;
}
