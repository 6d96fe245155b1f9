import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { signAccessToken, verifyAccessToken } from '../../src/oauth/access-token.js';
import { dataKeyId } from '../../src/secrets/data-key.js';
import { Keyring } from '../../src/secrets/keyring.js';

const dataKey = () => {
  const key = randomBytes(32);
  return { id: dataKeyId(key), key };
};
const config = loadConfig({ ADMIN_TOKEN: 'a-long-enough-operator-token-0123' });
const clock = () => new Date('2031-05-06T07:08:10.000Z');
const claims = {
  clientId: '0193a0c5-1111-7222-8333-444455556666',
  clinicId: '0193a0c5-9999-7222-8333-444455556666',
  environment: 'development' as const,
  scopes: ['orders:read' as const],
};

/** The signing key derives from DATA_ENCRYPTION_KEY (docs/oauth.md, "How tokens are signed"). */
describe('the access tokens\u2019 signing key', () => {
  it('when two instances share the data key, then one verifies what the other signed', async () => {
    const shared = dataKey();
    const { token } = await signAccessToken({ keyring: new Keyring(shared), config, clock }, claims);
    await expect(verifyAccessToken({ keyring: new Keyring(shared), config, clock }, token)).resolves.toEqual(claims);
  });

  it('when the data key is rotated, then tokens of the previous key verify while it is listed in DATA_ENCRYPTION_KEY_PREVIOUS, and not after', async () => {
    const old = dataKey();
    const { token } = await signAccessToken({ keyring: new Keyring(old), config, clock }, claims);
    const rotated = dataKey();
    await expect(verifyAccessToken({ keyring: new Keyring(rotated, [old]), config, clock }, token)).resolves.toEqual(claims);
    await expect(verifyAccessToken({ keyring: new Keyring(rotated), config, clock }, token)).rejects.toThrow(
      'Unauthorized: invalid access token',
    );
  });

  it('when a key is derived for another purpose, then it is not the token key, nor the data key itself', () => {
    const key = dataKey();
    const keyring = new Keyring(key);
    const token = keyring.derive('partner-fulfillment oauth access token signing v1')!.key;
    const other = keyring.derive('something else')!.key;
    expect(Buffer.from(token).equals(Buffer.from(other))).toBe(false);
    expect(Buffer.from(token).equals(key.key)).toBe(false);
    expect(keyring.derive('anything', 'deadbeef')).toBeNull();
  });
});
