import { randomBytes } from 'node:crypto';
import type { Environment } from '../config.js';

/**
 * Client secrets: `cs_dev_` or `cs_prod_` and 32 random bytes in base64url (43 characters). The
 * prefix says what it is (a secret scanner, or a person, tells it from an API key) and for which
 * environment, so that a secret of the other environment is refused without a lookup, as keys are.
 * Stored as one SHA-256, like API keys (clinics/api-key.ts: high-entropy, so no salt or stretching).
 */
export const SECRET_PREFIX: Record<Environment, string> = { development: 'cs_dev_', production: 'cs_prod_' };

export function generateClientSecret(environment: Environment): string {
  return SECRET_PREFIX[environment] + randomBytes(32).toString('base64url');
}

/** The environment a secret's prefix claims, or null for a secret of no known format. */
export function environmentOfSecret(secret: string): Environment | null {
  if (secret.startsWith(SECRET_PREFIX.development)) return 'development';
  if (secret.startsWith(SECRET_PREFIX.production)) return 'production';
  return null;
}
