import type { Trx } from '../db/database.js';
import { medicationKey } from '../medications/medication-name.js';
import { findFormularyEntries } from '../medications/medication.service.js';
import { findPractitionerOfClinic } from '../practitioners/practitioner.service.js';
import { findStateLicence } from '../shipping/licensed-states.service.js';
import type { DestinationFacts, DestinationRules } from './destination-check.js';
import type { OrderTable } from './order.tables.js';
import * as repo from './order.repository.js';

/**
 * The facts of a new destination of an order no intake read has (a hold's corrected address:
 * holds/answer-hold.service.ts), read in the caller's change through the services of licensed
 * states, medications and practitioners: what the licensed states say of `state`, the order's items
 * with their formulary entries as they are now (an item whose entry has left the formulary restricts
 * nothing), and the prescriber's credentials when a check needs them (a controlled entry, or
 * REQUIRE_PRESCRIBER_STATE_LICENSE). `field` names the items in a refusal's details.
 */
export async function readDestinationFacts(
  trx: Trx,
  order: Pick<OrderTable, 'id' | 'clinic_id' | 'practitioner_id'>,
  state: string,
  rules: Pick<DestinationRules, 'requireStateLicense'>,
  field: string,
): Promise<DestinationFacts> {
  const ctx = { db: trx };
  const licence = await findStateLicence(ctx, state);
  const items = await repo.listItemsOfOrder(trx, order.id);
  const keys = [...new Set(items.map((item) => medicationKey(item.medication)))];
  const entries = new Map((await findFormularyEntries(ctx, order.clinic_id, keys)).map((entry) => [entry.name_key, entry]));
  const ordered = items.map((item) => ({ field, entry: entries.get(medicationKey(item.medication)) }));
  const needsPrescriber = rules.requireStateLicense || ordered.some((item) => item.entry?.controlled_schedule);
  const prescriber = needsPrescriber
    ? ((await findPractitionerOfClinic(ctx, order.clinic_id, order.practitioner_id)) ?? null)
    : null;
  return { state, licence, prescriber, items: ordered };
}
