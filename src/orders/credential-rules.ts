/**
 * Where a preparation may go and who may prescribe it (issue 30, items 7 and 8), checked at intake
 * for a new order and a refill alike, from what the intake reads anyway: the parties' one query
 * (order.repository.ts findPartiesAndPricedShipping, which carries the prescriber's credentials) and
 * the formulary entries of the items. Pure: no I/O, no clock (today is given).
 *
 * - An entry's `restricted_states`: the pharmacy may not ship that preparation to the patient's
 *   state: 400 STATE_NOT_LICENSED with `details.state`, as for a state it holds no permit in.
 * - An entry with a `controlled_schedule`: the prescriber must have a DEA number: a VALIDATION_ERROR
 *   naming `dea_number`, with the order's other broken rules.
 * - With REQUIRE_PRESCRIBER_STATE_LICENSE: the prescriber must hold a licence in the patient's state,
 *   not expired today: 400 PRESCRIBER_NOT_LICENSED with `details.state`.
 *
 * @see docs/compounding.md#where-a-preparation-may-go-and-who-may-prescribe-it
 */
import { AppError, type ErrorDetails } from '../errors.js';
import type { MedicationTable } from '../medications/medication.tables.js';
import { credentialsOf, holdsLicenceIn } from '../practitioners/credentials.js';
import type { PractitionerTable } from '../practitioners/practitioner.tables.js';
import type { Problem } from './order-rules.js';

/** An item of the order with the formulary entry it names (undefined: not in the formulary, refused elsewhere). */
export interface EntryOfItem {
  /** Where the item is named in an error's details: `medication_requests[0].medication`, or a refill's `medication_request_id`. */
  field: string;
  entry: Pick<MedicationTable, 'name' | 'controlled_schedule' | 'restricted_states'> | undefined;
}

export interface CredentialFacts {
  /** The patient's state, upper case (null: no address, refused before these checks). */
  state: string | null;
  prescriber: Pick<PractitionerTable, 'id' | 'dea_number' | 'licenses'> | null;
  items: readonly EntryOfItem[];
  /** REQUIRE_PRESCRIBER_STATE_LICENSE (config.ts). */
  requireStateLicense: boolean;
  /** Today on the server's UTC calendar, YYYY-MM-DD (from the injected clock). */
  today: string;
}

export interface CredentialCheck {
  /** A broken rule that joins the order's other VALIDATION_ERROR problems (no DEA number). */
  problem: Problem | null;
  /** A refusal with its own code, raised after the pharmacy's licensed states are checked. */
  refusal: AppError | null;
}

/** The checks of issue 30 items 7 (an entry's restricted states) and 8 (the prescriber's credentials). */
export function checkCredentialsAndDestination(facts: CredentialFacts): CredentialCheck {
  return {
    problem: missingDeaNumber(facts),
    refusal: restrictedState(facts) ?? prescriberNotLicensed(facts),
  };
}

/** A controlled-schedule entry needs a prescriber with a DEA number. */
function missingDeaNumber(facts: CredentialFacts): Problem | null {
  if (!facts.prescriber || facts.prescriber.dea_number) return null;
  const controlled = facts.items.filter((item) => item.entry?.controlled_schedule);
  if (controlled.length === 0) return null;
  const details: ErrorDetails = {
    dea_number: `the prescriber (practitioner_id ${facts.prescriber.id}) has no DEA number, which a controlled-schedule medication needs; add it with PUT /api/external/practitioner/{id}/credentials`,
  };
  for (const { field, entry } of controlled) {
    details[field] =
      `names a controlled substance (schedule ${entry?.controlled_schedule ?? ''}): its prescriber needs a DEA number`;
  }
  const names = [...new Set(controlled.map((item) => item.entry?.name ?? ''))];
  return { message: `A controlled-schedule medication needs a prescriber with a DEA number: ${names.join(', ')}`, details };
}

/** An entry the pharmacy may not ship to the patient's state: refused as an unlicensed state is. */
function restrictedState(facts: CredentialFacts): AppError | null {
  const state = facts.state;
  if (!state) return null;
  const restricted = facts.items.filter((item) => restrictedStatesOf(item.entry).includes(state));
  if (restricted.length === 0) return null;
  const details: ErrorDetails = { state };
  for (const { field } of restricted)
    details[field] = `may not be shipped to ${state} (the formulary entry\u2019s restricted_states)`;
  const names = [...new Set(restricted.map((item) => item.entry?.name ?? ''))];
  return new AppError(
    'STATE_NOT_LICENSED',
    400,
    `The pharmacy may not ship ${names.join(', ')} to ${state}: route this order to another pharmacy (see GET /api/external/medications, restricted_states)`,
    details,
  );
}

function restrictedStatesOf(entry: EntryOfItem['entry']): string[] {
  return entry?.restricted_states ? (JSON.parse(entry.restricted_states) as string[]) : [];
}

/** With REQUIRE_PRESCRIBER_STATE_LICENSE: the prescriber holds a licence in the patient's state, unexpired today. */
function prescriberNotLicensed(facts: CredentialFacts): AppError | null {
  const { state, prescriber } = facts;
  if (!facts.requireStateLicense || !state || !prescriber) return null;
  if (holdsLicenceIn(credentialsOf(prescriber).licenses, state, facts.today)) return null;
  return new AppError(
    'PRESCRIBER_NOT_LICENSED',
    400,
    `The prescriber holds no unexpired licence in ${state}, the patient\u2019s state: add it (PUT /api/external/practitioner/{id}/credentials) or have a prescriber licensed there order`,
    { state, practitioner_id: `holds no licence in ${state} valid on ${facts.today}` },
  );
}
