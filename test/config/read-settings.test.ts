import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { readSettings } from '../../src/config/read-settings.js';
import { oneOf, setting, text, trueOrFalse, wholeNumber } from '../../src/config/setting.js';

/** The problems a bad environment produces (the thrown ConfigError's list). */
function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error(`expected a ConfigError for ${JSON.stringify(env)}`);
}

const EXAMPLE = {
  EXAMPLE_LIMIT: setting({ schema: wholeNumber(1, 50), default: { development: 5, production: 2 }, doc: 'How many.' }),
  EXAMPLE_ON: setting({ schema: trueOrFalse(), default: false, doc: 'Whether.' }),
  EXAMPLE_MODE: setting({ schema: oneOf(['fast', 'safe']), default: 'safe', doc: 'Which way.' }),
  EXAMPLE_NAME: setting({ schema: text(), accepts: 'a name', doc: 'Who.' }),
  EXAMPLE_SECRET: setting({
    schema: text({ pattern: '\\S' }),
    accepts: 'text',
    untrimmed: true,
    problem: 'EXAMPLE_SECRET is blank',
    doc: 'What.',
  }),
};

describe('reading declared settings', () => {
  it('when nothing is set, then each setting has the default of its environment, and one without a default is undefined', () => {
    expect(readSettings(EXAMPLE, {}, 'development', [])).toEqual({ EXAMPLE_LIMIT: 5, EXAMPLE_ON: false, EXAMPLE_MODE: 'safe' });
    expect(readSettings(EXAMPLE, {}, 'production', []).EXAMPLE_LIMIT).toBe(2);
  });

  it('when values are set, then they are typed and trimmed, except an untrimmed setting, kept as given', () => {
    const env = { EXAMPLE_LIMIT: ' 7 ', EXAMPLE_ON: 'YES', EXAMPLE_MODE: ' fast', EXAMPLE_NAME: ' Ann ', EXAMPLE_SECRET: ' s ' };
    expect(readSettings(EXAMPLE, env, 'development', [])).toEqual({
      EXAMPLE_LIMIT: 7,
      EXAMPLE_ON: true,
      EXAMPLE_MODE: 'fast',
      EXAMPLE_NAME: 'Ann',
      EXAMPLE_SECRET: ' s ',
    });
  });

  it('when every variable is wrong, then each gets one problem, in the order of the declarations, and reads as its default', () => {
    const problems: string[] = [];
    const env = { EXAMPLE_SECRET: '   ', EXAMPLE_MODE: 'quick', EXAMPLE_ON: 'maybe', EXAMPLE_LIMIT: '51' };
    expect(readSettings(EXAMPLE, env, 'development', problems)).toEqual({
      EXAMPLE_LIMIT: 5,
      EXAMPLE_ON: false,
      EXAMPLE_MODE: 'safe',
    });
    expect(problems).toEqual([
      'EXAMPLE_LIMIT must be between 1 and 50, got 51',
      'EXAMPLE_ON must be true or false, got "maybe"',
      'EXAMPLE_MODE must be one of fast, safe, got "quick"',
      'EXAMPLE_SECRET is blank',
    ]);
  });
});

describe('the rules every setting follows', () => {
  it.each(['3e4', '0x10', '+5', '1_000', '10.0'])(
    'when a whole number is written as %s, then it is refused: digits only',
    (value) => {
      expect(problemsOf({ WEBHOOK_TIMEOUT_MS: value })).toEqual([`WEBHOOK_TIMEOUT_MS must be a whole number, got "${value}"`]);
    },
  );

  it('when a flag is written true/1/yes or false/0/no, in any case, then it is read; anything else is refused', () => {
    for (const value of ['true', '1', 'YES', 'Yes'])
      expect(loadConfig({ REQUIRE_ADMIN_TOTP: value }).requireAdminTotp).toBe(true);
    for (const value of ['false', '0', 'NO']) expect(loadConfig({ RUN_WORKER: value }).runWorker).toBe(false);
    expect(problemsOf({ RUN_WORKER: 'on' })).toEqual(['RUN_WORKER must be true or false, got "on"']);
  });

  it('when LOG_LEVEL, FULFILLMENT_ENV or HOST is empty, then its default applies, as for every variable', () => {
    const config = loadConfig({ LOG_LEVEL: '', FULFILLMENT_ENV: '', HOST: '' });
    expect([config.logLevel, config.env, config.host]).toEqual(['info', 'development', '127.0.0.1']);
  });
});
