import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { isInMemoryDatabase, type Config } from '../config.js';
import { readOrCreateSecretFile } from './secret-file.js';

/**
 * In development without ADMIN_TOKEN, the operator token generated at the first start is kept in
 * ./data/admin-token, beside the development data key (DEV_KEY_FILE), so that the token saved in a
 * shell (`ADMIN=(-H "authorization: Bearer …")`) still works after a restart.
 */
export const DEV_OPERATOR_TOKEN_FILE = path.join('data', 'admin-token');

/** What loadConfig generates, and what the file must hold: base64url, 32 characters or more. */
const TOKEN = /^[A-Za-z0-9_-]{32,}$/;

export interface KeptOperatorToken {
  config: Config;
  /** The file the generated token is kept in; null when ADMIN_TOKEN is set or the database is in memory. */
  keptIn: string | null;
}

/**
 * The server's configuration with its development operator token: unchanged when ADMIN_TOKEN is
 * set (always, in production) or the database is in memory (a token for the run only); otherwise
 * the token kept in the file, created on the first start.
 */
export function keepDevelopmentOperatorToken(config: Config, options: { file?: string } = {}): KeptOperatorToken {
  if (!config.operatorTokenGenerated || isInMemoryDatabase(config.database)) return { config, keptIn: null };
  const file = options.file ?? DEV_OPERATOR_TOKEN_FILE;
  const token = readOrCreateSecretFile(file, () => randomBytes(24).toString('base64url')).trim();
  if (!TOKEN.test(token)) {
    throw new Error(
      `The operator token file ${file} does not hold a token (32 or more characters of A-Z a-z 0-9 _ -): delete it to have a new one generated, or set ADMIN_TOKEN`,
    );
  }
  return { config: Object.freeze({ ...config, operatorToken: token }), keptIn: file };
}
