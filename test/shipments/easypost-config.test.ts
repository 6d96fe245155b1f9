import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

const production = {
  FULFILLMENT_ENV: 'production',
  ADMIN_TOKEN: 'prod-operator-token-0123456789-abcdef',
  DATA_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
};

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('EASYPOST_WEBHOOK_SECRET', () => {
  it('when it is unset or empty, then the receiver has no secret (it answers 503)', () => {
    expect(loadConfig({}).easyPostWebhookSecret).toBeNull();
    expect(loadConfig({ EASYPOST_WEBHOOK_SECRET: '' }).easyPostWebhookSecret).toBeNull();
    expect(loadConfig(production).easyPostWebhookSecret).toBeNull();
  });

  it('when it is set, then it is kept exactly as given (spaces and accents included)', () => {
    expect(loadConfig({ EASYPOST_WEBHOOK_SECRET: 's\u00e9cret' }).easyPostWebhookSecret).toBe('s\u00e9cret');
    expect(loadConfig({ EASYPOST_WEBHOOK_SECRET: ' pad ' }).easyPostWebhookSecret).toBe(' pad ');
  });

  it('when it is blank, holds a control character, or is short in production, then the start fails naming it without quoting it', () => {
    expect(problemsOf({ EASYPOST_WEBHOOK_SECRET: '   ' })).toEqual(['EASYPOST_WEBHOOK_SECRET must not be only whitespace']);
    const pasted = problemsOf({ EASYPOST_WEBHOOK_SECRET: 'a-secret-value\n' });
    expect(pasted).toHaveLength(1);
    expect(pasted[0]).toMatch(/^EASYPOST_WEBHOOK_SECRET must not contain control characters/);
    const short = problemsOf({ ...production, EASYPOST_WEBHOOK_SECRET: 'short-secret' });
    expect(short).toHaveLength(1);
    expect(short[0]).toMatch(/^EASYPOST_WEBHOOK_SECRET must be at least 16 characters in production/);
    expect(short[0]).not.toContain('short-secret');
    expect(loadConfig({ ...production, EASYPOST_WEBHOOK_SECRET: 'a'.repeat(16) }).easyPostWebhookSecret).toBe('a'.repeat(16));
  });
});
