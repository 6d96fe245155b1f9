import type { AuditContext } from '../audit/audit-actor.js';
import { runChange } from '../changes/run-change.js';
import { isoNow } from '../clock.js';
import type { ServiceContext } from '../context.js';
import type { Environment } from '../config.js';
import type { DbOrTrx } from '../db/database.js';
import { fieldError } from '../errors.js';
import { isUsStateCode } from '../reference/us-states.js';
import { licensedStatesWhenUnset, type StateLicence } from './licensed-states.js';
import * as repo from './licensed-states.repository.js';
import type { LicensedStatesView } from './licensed-states.schemas.js';

/**
 * The states the pharmacy may ship to (GET /api/external/licensed-states and its operator twin):
 * the set list, or while it was never set the environment's default (is_default true).
 */
export async function getLicensedStates(ctx: { db: DbOrTrx; config: { env: Environment } }): Promise<LicensedStatesView> {
  const set = await repo.findLicensedStates(ctx.db);
  if (!set) return { states: [...licensedStatesWhenUnset(ctx.config.env)].sort(), is_default: true, updated_at: null };
  return { states: set.states, is_default: false, updated_at: set.updatedAt };
}

/**
 * What the licensed states say of one state, for a destination no intake read has (a hold's
 * corrected address: orders/destination-facts.ts); the intake reads it with the order's parties.
 */
export async function findStateLicence(ctx: { db: DbOrTrx }, state: string): Promise<StateLicence> {
  return repo.findStateLicence(ctx.db, state);
}

/**
 * Replaces the licensed states in one transaction, audited (`update` of `licensed_states`). Codes
 * are upper-cased and de-duplicated; an unknown code is a 400 naming `states`. Orders read the list
 * with their intake query (no cache), so every server sees the change at once.
 */
export async function replaceLicensedStates(
  ctx: ServiceContext,
  states: readonly string[],
  audit: AuditContext | null,
): Promise<LicensedStatesView> {
  const codes = [...new Set(states.map((s) => s.trim().toUpperCase()))].sort();
  const unknown = codes.filter((code) => !isUsStateCode(code));
  if (unknown.length > 0) {
    // Only two plain letters are echoed: the answer never carries what else a body sent.
    const named = unknown.filter((code) => /^[A-Z]{2}$/.test(code));
    const others = unknown.length - named.length;
    const list = [...named, ...(others > 0 ? [`${others} value(s) that are not two letters`] : [])].join(', ');
    throw fieldError('states', `must hold two-letter US state codes (GET /api/external/licensed-states); unknown: ${list}`);
  }
  const at = isoNow(ctx.clock);
  await runChange(ctx, audit, async (change) => {
    const trx = await change.transaction();
    await repo.replaceLicensedStates(trx, codes, at);
    change.audit?.('update', { type: 'licensed_states', id: 'pharmacy', clinicId: null });
  });
  return { states: codes, is_default: false, updated_at: at };
}
