import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { openRuntime } from '../../src/bootstrap.js';
import { loadConfig, PASSWORD_HASHING } from '../../src/config.js';
import { hashPassword, unknownAccountHash, verifyPassword } from '../../src/staff/password.js';
import { OPERATOR_TOKEN, TEST_DATA_ENCRYPTION_KEY, TEST_PASSWORD_HASHING } from '../helpers/test-app.js';

/**
 * The password hash's cost. The in-process tests lower it through the config (test/helpers/test-app.ts);
 * these tests hold what every deployment gets: scrypt with N = 2^15, r = 8, p = 1, whatever its
 * environment, since no variable sets it.
 */
const PRODUCTION = { N: 32_768, r: 8, p: 1 };
const PASSWORD = 'correct horse battery staple';

describe('the password hash', () => {
  it('when the config is loaded for production or development, then the cost is N = 2^15, r = 8, p = 1', () => {
    const production = loadConfig({
      FULFILLMENT_ENV: 'production',
      ADMIN_TOKEN: OPERATOR_TOKEN,
      DATA_ENCRYPTION_KEY: TEST_DATA_ENCRYPTION_KEY,
    });
    expect(production.passwordHashing).toEqual(PRODUCTION);
    expect(loadConfig({}).passwordHashing).toEqual(PRODUCTION);
    expect(PASSWORD_HASHING).toEqual(PRODUCTION);
  });

  it('when a server started from the loaded config makes a staff account, then its stored hash has the production cost', async () => {
    const config = loadConfig({
      DATABASE_URL: ':memory:',
      ADMIN_TOKEN: OPERATOR_TOKEN,
      DATA_ENCRYPTION_KEY: TEST_DATA_ENCRYPTION_KEY,
      LOG_LEVEL: 'silent',
      RUN_WORKER: 'false',
    });
    const runtime = await openRuntime(config);
    const app = await buildApp(runtime.ctx);
    try {
      const res = await app.inject({
        method: 'POST',
        url: '/api/admin/staff',
        headers: { authorization: `Bearer ${OPERATOR_TOKEN}`, 'content-type': 'application/json' },
        payload: JSON.stringify({ email: 'cost@pharmacy.example', name: 'Cost', role: 'admin', password: PASSWORD }),
      });
      expect(res.statusCode).toBe(200);
      const row = await runtime.ctx.db
        .selectFrom('staff_members')
        .select('password_hash')
        .where('email', '=', 'cost@pharmacy.example')
        .executeTakeFirstOrThrow();
      expect(row.password_hash).toMatch(/^scrypt\$32768\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
      expect(await verifyPassword(PASSWORD, row.password_hash)).toBe(true);
    } finally {
      await app.close();
      await runtime.close();
    }
  });

  it('when a hash was made at another cost, then it still verifies, since the stored form carries its parameters', async () => {
    const cheap = await hashPassword(PASSWORD, TEST_PASSWORD_HASHING);
    expect(cheap).toMatch(/^scrypt\$1024\$8\$1\$/);
    expect(await verifyPassword(PASSWORD, cheap)).toBe(true);
    expect(await verifyPassword(`${PASSWORD}!`, cheap)).toBe(false);
  });

  it('when an email is unknown, then the hash verified against has the config’s cost and matches nothing', async () => {
    expect(unknownAccountHash(PRODUCTION)).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect(unknownAccountHash(TEST_PASSWORD_HASHING)).toMatch(/^scrypt\$1024\$8\$1\$/);
    expect(await verifyPassword(PASSWORD, unknownAccountHash(TEST_PASSWORD_HASHING))).toBe(false);
  });
});
