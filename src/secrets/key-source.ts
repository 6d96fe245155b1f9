import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { isInMemoryDatabase, type Config } from '../config.js';
import { DATA_KEY_BYTES, dataKeyId, parseDataKey, type DataKey } from './data-key.js';
import { Keyring } from './keyring.js';
import { readOrCreateSecretFile } from './secret-file.js';

/**
 * Where the keys come from: DATA_ENCRYPTION_KEY (required in production, so always there), or in
 * development a key generated once into ./data/encryption.key, beside the default SQLite file, and
 * reused by every later start, the worker and the command line (they start in the same folder).
 */
export const DEV_KEY_FILE = path.join('data', 'encryption.key');

export function openKeyring(
  config: Pick<Config, 'dataKeys' | 'database'>,
  options: { keyFile?: string | undefined } = {},
): Keyring {
  const { current, previous } = config.dataKeys;
  if (current) return new Keyring(current, previous);
  // An in-memory database dies with the process: so may its key (and nothing is written to disk).
  if (isInMemoryDatabase(config.database)) {
    const key = randomBytes(DATA_KEY_BYTES);
    return new Keyring({ id: dataKeyId(key), key }, previous);
  }
  return new Keyring(loadOrCreateKeyFile(options.keyFile ?? DEV_KEY_FILE), previous);
}

/** Reads the key file, creating it first (mode 0600) when it does not exist (see readOrCreateSecretFile). */
export function loadOrCreateKeyFile(file: string): DataKey {
  return parseKeyFile(
    readOrCreateSecretFile(file, () => randomBytes(DATA_KEY_BYTES).toString('base64')),
    file,
  );
}

function parseKeyFile(text: string, file: string): DataKey {
  const parsed = parseDataKey(text, `The key file ${file}`);
  if ('problem' in parsed) {
    throw new Error(`${parsed.problem}; restore the file, or set DATA_ENCRYPTION_KEY (see docs/webhooks.md)`);
  }
  return parsed;
}
