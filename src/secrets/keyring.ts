import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { DataKey } from './data-key.js';

/**
 * Encryption of values at rest with AES-256-GCM (node:crypto): a random 12-byte IV per value, the
 * 16-byte authentication tag checked on every decryption, and associated data (AAD) that binds a value
 * to its place (e.g. its row's id), so that a ciphertext copied into another row does not decrypt.
 * A sealed value is `v1:<iv b64>:<tag b64>:<ciphertext b64>`; the id of its key is stored beside it.
 */

const FORMAT = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export interface SealedValue {
  /** The id of the key it is encrypted under (DataKey.id). */
  keyId: string;
  value: string;
}

/** A stored value that cannot be decrypted: its key is not configured, or it was altered. Never carries the value. */
export class SecretUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretUnavailableError';
  }
}

/** The current key (encrypts) and the previous ones (still decrypt, until rotated away). */
export class Keyring {
  private readonly keys: ReadonlyMap<string, Buffer>;

  constructor(
    private readonly current: DataKey,
    previous: readonly DataKey[] = [],
  ) {
    this.keys = new Map([...previous, current].map((k) => [k.id, k.key]));
  }

  get currentKeyId(): string {
    return this.current.id;
  }

  /** True when a value under this key id can be decrypted. */
  has(keyId: string): boolean {
    return this.keys.has(keyId);
  }

  /**
   * A key for another purpose, derived from a data key (HKDF-SHA256 with `purpose` as its info): the
   * current key's, or the one of id `keyId`; null when that key is not configured. The data key
   * itself never leaves the keyring, and a derived key tells nothing of it or of another purpose's.
   */
  derive(purpose: string, keyId: string = this.current.id): { keyId: string; key: Uint8Array } | null {
    const key = this.keys.get(keyId);
    if (!key) return null;
    return { keyId, key: new Uint8Array(hkdfSync('sha256', key, new Uint8Array(0), purpose, 32)) };
  }

  seal(plaintext: string, aad: string): SealedValue {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.current.key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(aad, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const tag = cipher.getAuthTag();
    return {
      keyId: this.current.id,
      value: [FORMAT, iv.toString('base64'), tag.toString('base64'), ciphertext.toString('base64')].join(':'),
    };
  }

  /** Decrypts a sealed value; throws SecretUnavailableError when its key is missing or it fails authentication. */
  open(sealed: SealedValue, aad: string): string {
    const key = this.keys.get(sealed.keyId);
    if (!key) {
      throw new SecretUnavailableError(
        `encrypted under key ${sealed.keyId}, which is neither DATA_ENCRYPTION_KEY nor in DATA_ENCRYPTION_KEY_PREVIOUS`,
      );
    }
    const [format, iv, tag, ciphertext, ...rest] = sealed.value.split(':');
    if (format !== FORMAT || iv === undefined || tag === undefined || ciphertext === undefined || rest.length > 0) {
      throw new SecretUnavailableError(`stored under key ${sealed.keyId} in an unknown format`);
    }
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'), { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(aad, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64'));
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64')), decipher.final()]).toString('utf8');
    } catch {
      // GCM refuses a wrong tag, IV or AAD alike: the value was altered, moved, or the key is not the one it names.
      throw new SecretUnavailableError(`failed authentication under key ${sealed.keyId} (altered, or copied from another row)`);
    }
  }
}
