import { createHash } from 'node:crypto';

/**
 * Data encryption keys (DATA_ENCRYPTION_KEY and DATA_ENCRYPTION_KEY_PREVIOUS): 32 random bytes in
 * base64, as `openssl rand -base64 32` prints. Pure: parsing and naming only.
 */

/** A key and its id, the id stored beside every value encrypted under it. */
export interface DataKey {
  /** The first 8 hex characters of SHA-256 of the key's bytes (not secret: names the key). */
  readonly id: string;
  readonly key: Buffer;
}

export const DATA_KEY_BYTES = 32;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** `sha256(key)`'s first 8 hex characters; an operator finds it with `base64 -d | sha256sum | cut -c1-8`. */
export function dataKeyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}

/**
 * Parses one key; on a bad value returns the problem (which never repeats the value: it is a secret).
 * `name` is how the problem names the key (a variable, a file).
 */
export function parseDataKey(text: string, name: string): DataKey | { problem: string } {
  const value = text.trim();
  if (!BASE64.test(value) || value.length % 4 !== 0) {
    return { problem: `${name} must be base64 (32 random bytes, as \`openssl rand -base64 32\` prints)` };
  }
  const key = Buffer.from(value, 'base64');
  if (key.length !== DATA_KEY_BYTES) {
    return {
      problem: `${name} must decode to exactly ${DATA_KEY_BYTES} bytes, got ${key.length} (use \`openssl rand -base64 32\`)`,
    };
  }
  return { id: dataKeyId(key), key };
}

/** The data keys the configuration names: the current one (null: use the development key file) and older ones. */
export interface DataKeySettings {
  readonly current: DataKey | null;
  readonly previous: readonly DataKey[];
}

/**
 * DATA_ENCRYPTION_KEY (required in production) and DATA_ENCRYPTION_KEY_PREVIOUS (a comma-separated
 * list of keys still accepted for decryption), as configuration read them; every problem is added to `problems`.
 */
export function parseDataKeySettings(
  currentText: string | undefined,
  previousText: string | undefined,
  production: boolean,
  problems: string[],
): DataKeySettings {
  let current: DataKey | null = null;
  if (currentText === undefined) {
    if (production) problems.push('DATA_ENCRYPTION_KEY is required in production (generate one with `openssl rand -base64 32`)');
  } else {
    const parsed = parseDataKey(currentText, 'DATA_ENCRYPTION_KEY');
    if ('problem' in parsed) problems.push(parsed.problem);
    else current = parsed;
  }

  const previous: DataKey[] = [];
  const items = (previousText ?? '').split(',').map((item) => item.trim());
  items.forEach((item, index) => {
    if (item === '') return;
    const parsed = parseDataKey(item, `DATA_ENCRYPTION_KEY_PREVIOUS (key ${index + 1})`);
    if ('problem' in parsed) problems.push(parsed.problem);
    else previous.push(parsed);
  });

  const seen = new Map<string, Buffer>();
  for (const key of [...(current ? [current] : []), ...previous]) {
    const other = seen.get(key.id);
    // Ids are 32 bits: two different keys sharing one is next to impossible, but would be ambiguous.
    if (other && !other.equals(key.key)) problems.push(`DATA_ENCRYPTION_KEY_PREVIOUS: two different keys share the id ${key.id}`);
    seen.set(key.id, key.key);
  }
  return Object.freeze({ current, previous: Object.freeze(previous.filter((k) => k.id !== current?.id)) });
}
