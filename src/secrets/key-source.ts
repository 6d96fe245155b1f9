import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.js';
import { DATA_KEY_BYTES, dataKeyId, parseDataKey, type DataKey } from './data-key.js';
import { Keyring } from './keyring.js';

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
  if (config.database.kind === 'sqlite' && config.database.filename === ':memory:') {
    const key = randomBytes(DATA_KEY_BYTES);
    return new Keyring({ id: dataKeyId(key), key }, previous);
  }
  return new Keyring(loadOrCreateKeyFile(options.keyFile ?? DEV_KEY_FILE), previous);
}

/**
 * Reads the key file, creating it first (mode 0600) when it does not exist. The new key is written
 * to a temporary file and linked into place, which fails when another process got there first: two
 * processes starting together end up with the same, complete key.
 */
export function loadOrCreateKeyFile(file: string): DataKey {
  try {
    return readKeyFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(temporary, `${randomBytes(DATA_KEY_BYTES).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  try {
    linkSync(temporary, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    unlinkSync(temporary);
  }
  return readKeyFile(file);
}

function readKeyFile(file: string): DataKey {
  const parsed = parseDataKey(readFileSync(file, 'utf8'), `The key file ${file}`);
  if ('problem' in parsed) {
    throw new Error(`${parsed.problem}; restore the file, or set DATA_ENCRYPTION_KEY (see docs/webhooks.md)`);
  }
  return parsed;
}
