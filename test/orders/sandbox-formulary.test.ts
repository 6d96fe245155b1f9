import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_COLD_CHAIN_SERVICES, SANDBOX_FORMULARY, seedSandbox } from '../../src/sandbox-seed.js';
import { expectOk } from '../helpers/factories.js';
import { TestApp } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';

/** Issue 30: the sandbox's formulary shows partners what a formula looks like. */
describe.each(DIALECTS)('the sandbox\u2019s seeded formulary on %s', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await TestApp.start({ dialect });
  });
  afterAll(async () => t.close());

  it('when a development server seeds its sandbox clinic, then every formulary entry has a formula, partners see it, and Testosterone is Schedule III', async () => {
    const seed = await seedSandbox(t.ctx);
    if (!seed?.apiKey) throw new Error('a fresh development database seeds a sandbox clinic with a key');
    const page = expectOk(await t.partner(seed.apiKey).get('/api/external/medications?limit=100'), 'formulary');
    const entries = page.items as {
      name: string;
      ingredients: { active: boolean }[] | null;
      storage: string | null;
      controlled_schedule: string | null;
    }[];
    expect(entries.map((entry) => entry.name).sort()).toEqual(SANDBOX_FORMULARY.map((entry) => entry.name).sort());
    for (const entry of entries) {
      expect(
        entry.ingredients?.some((ingredient) => ingredient.active),
        entry.name,
      ).toBe(true);
      expect(entry.storage, entry.name).not.toBeNull();
    }
    expect(entries.find((entry) => entry.name === 'Testosterone Cypionate')?.controlled_schedule).toBe('III');
  });

  it('when the sandbox is seeded, then the overnight and express services are cold-chain eligible and the others not, so partners see both kinds', async () => {
    const seed = await seedSandbox(t.ctx);
    const rows = await t.ctx.db.selectFrom('shipping_services').select(['id', 'cold_chain_eligible']).orderBy('id').execute();
    expect(rows.filter((row) => row.cold_chain_eligible === 1).map((row) => row.id)).toEqual(
      [...SANDBOX_COLD_CHAIN_SERVICES].sort(),
    );
    expect(rows.some((row) => row.cold_chain_eligible === 0)).toBe(true);
    expect(seed?.clinicId).toBeDefined();
  });
});
