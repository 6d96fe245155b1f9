import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { dataKeyId, type DataKey } from '../../src/secrets/data-key.js';
import { Keyring, SecretUnavailableError, type SealedValue } from '../../src/secrets/keyring.js';

const newKey = (): DataKey => {
  const key = randomBytes(32);
  return { id: dataKeyId(key), key };
};
const SECRET = 'whsec_c2VjcmV0LXRoYXQtbXVzdC1uZXZlci1iZS1zZWVu';

/** The value with one character of its `part` (1: IV, 2: tag, 3: ciphertext) changed. */
function tamper(sealed: SealedValue, part: 1 | 2 | 3): SealedValue {
  const parts = sealed.value.split(':');
  const text = parts[part]!;
  parts[part] = `${text.startsWith('A') ? 'B' : 'A'}${text.slice(1)}`;
  return { ...sealed, value: parts.join(':') };
}

describe('the keyring (AES-256-GCM)', () => {
  it('when a value is sealed, then it opens with the same AAD and holds no trace of the plaintext', () => {
    const keyring = new Keyring(newKey());
    const sealed = keyring.seal(SECRET, 'row-1');
    expect(sealed.keyId).toBe(keyring.currentKeyId);
    expect(sealed.value).toMatch(/^v1:[A-Za-z0-9+/]{16}:[A-Za-z0-9+/]{22}==:[A-Za-z0-9+/]+=*$/);
    expect(sealed.value).not.toContain(SECRET.slice(6, 20));
    expect(keyring.open(sealed, 'row-1')).toBe(SECRET);
  });

  it('when the same value is sealed twice, then the IVs and ciphertexts differ', () => {
    const keyring = new Keyring(newKey());
    const [a, b] = [keyring.seal(SECRET, 'row-1'), keyring.seal(SECRET, 'row-1')];
    expect(a.value.split(':')[1]).not.toBe(b.value.split(':')[1]);
    expect(a.value).not.toBe(b.value);
  });

  it.each([1, 2, 3] as const)(
    'when part %s of the value (1: IV, 2: tag, 3: ciphertext) is altered, then opening is refused',
    (part) => {
      const keyring = new Keyring(newKey());
      const altered = tamper(keyring.seal(SECRET, 'row-1'), part);
      expect(() => keyring.open(altered, 'row-1')).toThrow(SecretUnavailableError);
      expect(() => keyring.open(altered, 'row-1')).toThrow(/failed authentication/);
    },
  );

  it('when a value is opened with the AAD of another row, then it is refused', () => {
    const keyring = new Keyring(newKey());
    expect(() => keyring.open(keyring.seal(SECRET, 'row-1'), 'row-2')).toThrow(/failed authentication/);
  });

  it('when the value is not in the v1 format, then it is refused', () => {
    const keyring = new Keyring(newKey());
    const sealed = keyring.seal(SECRET, 'row-1');
    expect(() => keyring.open({ ...sealed, value: SECRET }, 'row-1')).toThrow(/unknown format/);
    expect(() => keyring.open({ ...sealed, value: `${sealed.value}:extra` }, 'row-1')).toThrow(/unknown format/);
  });

  it('when a previous key is configured, then its values still open and new values are sealed under the current key', () => {
    const [old, current] = [newKey(), newKey()];
    const before = new Keyring(old).seal(SECRET, 'row-1');
    const keyring = new Keyring(current, [old]);
    expect(keyring.open(before, 'row-1')).toBe(SECRET);
    expect(keyring.seal(SECRET, 'row-1').keyId).toBe(current.id);
    expect(keyring.has(old.id)).toBe(true);
  });

  it('when the key a value names is not configured, then opening fails naming the key id and the variables', () => {
    const old = newKey();
    const sealed = new Keyring(old).seal(SECRET, 'row-1');
    const error = (() => {
      try {
        new Keyring(newKey()).open(sealed, 'row-1');
      } catch (e) {
        return e as Error;
      }
      throw new Error('expected a refusal');
    })();
    expect(error).toBeInstanceOf(SecretUnavailableError);
    expect(error.message).toBe(
      `encrypted under key ${old.id}, which is neither DATA_ENCRYPTION_KEY nor in DATA_ENCRYPTION_KEY_PREVIOUS`,
    );
  });

  it('when a key id is computed, then it is the first 8 hex characters of SHA-256 of the key bytes', () => {
    // echo -n 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=' | base64 -d | sha256sum | cut -c1-8
    expect(dataKeyId(Buffer.alloc(32))).toBe('66687aad');
  });
});
