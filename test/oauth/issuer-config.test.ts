import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

const base = { ADMIN_TOKEN: 'a-long-enough-operator-token-0123' };

describe('OAUTH_ISSUER', () => {
  it('when it is unset, then the issuer names the environment', () => {
    expect(loadConfig(base).oauthIssuer).toBe('urn:partner-fulfillment-api:development');
  });

  it('when it is an https address with a trailing slash, then the slash is dropped', () => {
    expect(loadConfig({ ...base, OAUTH_ISSUER: 'https://api.example.com/' }).oauthIssuer).toBe('https://api.example.com');
  });

  it('when it is plain http in production, has a query, or is no URI, then the start is refused naming it', () => {
    const production = {
      FULFILLMENT_ENV: 'production',
      ADMIN_TOKEN: 'prod-operator-token-0123456789-abcdefgh',
      DATA_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
    };
    for (const env of [
      { ...production, OAUTH_ISSUER: 'http://api.example.com' },
      { ...base, OAUTH_ISSUER: 'https://api.example.com/?a=1' },
      { ...base, OAUTH_ISSUER: 'api.example.com' },
    ]) {
      expect(() => loadConfig(env)).toThrow(ConfigError);
      try {
        loadConfig(env);
      } catch (error) {
        expect((error as ConfigError).problems.some((problem) => problem.startsWith('OAUTH_ISSUER'))).toBe(true);
      }
    }
  });
});
