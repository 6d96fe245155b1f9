import { afterAll, beforeAll, describe, it } from 'vitest';
import type { DialectName } from '../../src/db/database.js';
import { expectSameAnswerEverywhere, registeredApiRoutes, textTargetsOf } from '../hardening/text-targets.js';
import { createTextWorld, type TextWorld } from '../hardening/text-world.js';
import { TestApp } from '../helpers/test-app.js';
import { DIALECTS } from '../helpers/test-db.js';

/**
 * The text fuzz of issue 9, item 2, at length: the main suite's property (test/http/text-safety.test.ts)
 * with a seed of its own and six times the values, in every text field of every partner, operator and
 * portal route, on SQLite and PostgreSQL: the same status on both, and never a 5xx. About two minutes.
 *
 * The fields grew to 326 (FHIR, holds, shipments, the compounding record among them) while each
 * kept its 100 values: the file took 7 minutes, half the fault suite (CONTRIBUTING.md, "How long the
 * suite takes"). Now 25 a field, about 8,000 on each database: a smaller search in each field, from
 * the same generator (anyText in test/hardening/text-targets.ts: any UTF-16 unit, binary, and the
 * known troublemakers, NUL and lone surrogates among them).
 */

const SEED = 20261124;
const RUNS_PER_FIELD = 25;
/**
 * Targets whose base makes and signs in a new account on every run (a password judged by zxcvbn and
 * hashed with scrypt, at the tests' lower cost since issue 28, on both databases) get a fifth of the
 * runs; the main suite sends them its usual values.
 */
const ACCOUNT_MAKING_ROUTES =
  /^(POST \/api\/(admin|portal)\/session|POST \/api\/admin\/staff|POST \/api\/portal\/invitations\/accept|(POST|DELETE) \/api\/(admin|portal)\/account\/totp(\/confirm)?|POST \/api\/portal\/webhooks) /;
const runsFor = (targetName: string): number => (ACCOUNT_MAKING_ROUTES.test(targetName) ? RUNS_PER_FIELD / 5 : RUNS_PER_FIELD);

const TARGETS = textTargetsOf(await registeredApiRoutes());

const worlds: { dialect: DialectName; world: TextWorld }[] = [];

beforeAll(async () => {
  for (const dialect of DIALECTS) worlds.push({ dialect, world: await createTextWorld(await TestApp.start({ dialect })) });
});
afterAll(async () => {
  for (const { world } of worlds) await world.t.close();
});

describe('arbitrary text in every text field, at length', () => {
  it.each(TARGETS.map((target) => [target.name, target] as const))(
    'when any string is sent in %s, then every database answers the same status, and never a 5xx',
    async (_name, target) => {
      await expectSameAnswerEverywhere(target, worlds, { seed: SEED, numRuns: runsFor(target.name) });
    },
  );
});
