/**
 * Where an order may go and who may prescribe it: the one check of a destination (issues 30 and 38),
 * in one order, for a new order, a refill and a hold's corrected address alike. Pure: no I/O, no
 * clock (today is given); its facts come with the intake's reads (order-parties.repository.ts
 * findPartiesAndPricedShipping and the formulary entries), or from destination-facts.ts for an
 * address that no intake read (a hold's answer).
 *
 * The checks, in this order:
 * 1. An entry with a `controlled_schedule` needs a prescriber with a DEA number: a VALIDATION_ERROR
 *    naming `dea_number` (`problem`, answered with the order's other broken rules). It does not
 *    depend on the destination: a hold's new address is not refused for it.
 * 2. The pharmacy ships only to the states it holds a permit in (docs/shipping.md#licensed-states):
 *    400 STATE_NOT_LICENSED with `details.state`, so that the partner can route it elsewhere at once.
 * 3. An entry's `restricted_states`: the pharmacy may not ship that preparation to the state: 400
 *    STATE_NOT_LICENSED with `details.state` and the item.
 * 4. With REQUIRE_PRESCRIBER_STATE_LICENSE: the prescriber holds a licence in the state, not
 *    expired today: 400 PRESCRIBER_NOT_LICENSED with `details.state`.
 * The refusals (2 to 4) are answered after every VALIDATION_ERROR of the order: a patient without an
 * address is one of those first.
 *
 * @see docs/compounding.md#where-a-preparation-may-go-and-who-may-prescribe-it
 */
import type { Config, Environment } from '../config.js';
import { AppError, type ErrorDetails } from '../errors.js';
import type { MedicationTable } from '../medications/medication.tables.js';
import { credentialsOf, holdsLicenceIn } from '../practitioners/credentials.js';
import type { PractitionerTable } from '../practitioners/practitioner.tables.js';
import { isLicensed, type StateLicence } from '../shipping/licensed-states.js';
import type { Problem } from './order-rules.js';
import { restrictedStatesOf } from '../medications/formula.js';

/** An item of the order with the formulary entry it names (undefined: not in the formulary, refused elsewhere). */
export interface EntryOfItem {
  /** Where the item is named in an error's details: `medication_requests[0].medication`, or a refill's `medication_request_id`. */
  field: string;
  entry: Pick<MedicationTable, 'name' | 'controlled_schedule' | 'restricted_states'> | undefined;
}

/** What a destination is checked against. */
export interface DestinationFacts {
  /** The destination's state, upper case (null: no address, refused before these checks). */
  state: string | null;
  /** What the pharmacy's licensed states say of it. */
  licence: StateLicence;
  prescriber: Pick<PractitionerTable, 'id' | 'dea_number' | 'licenses'> | null;
  items: readonly EntryOfItem[];
}

/** The settings and the day the check applies. */
export interface DestinationRules {
  env: Environment;
  /** REQUIRE_PRESCRIBER_STATE_LICENSE (config.ts). */
  requireStateLicense: boolean;
  /** Today on the server's UTC calendar, YYYY-MM-DD (from the injected clock). */
  today: string;
}

export interface DestinationCheck {
  /** A broken rule that joins the order's other VALIDATION_ERROR problems (no DEA number). */
  problem: Problem | null;
  /** The first refusal with its own code, answered after the order's VALIDATION_ERROR problems. */
  refusal: AppError | null;
}

/** The rules of the server's settings, on the day `now` falls on (UTC). */
export function destinationRules(
  ctx: { config: Pick<Config, 'env' | 'requirePrescriberStateLicense'> },
  now: string,
): DestinationRules {
  return { env: ctx.config.env, requireStateLicense: ctx.config.requirePrescriberStateLicense, today: now.slice(0, 10) };
}

/** The checks of a destination, in their one order (see the top of this file). */
export function checkDestination(facts: DestinationFacts, rules: DestinationRules): DestinationCheck {
  return {
    problem: missingDeaNumber(facts),
    refusal:
      stateNotLicensed(facts.state, facts.licence, rules.env) ?? restrictedState(facts) ?? prescriberNotLicensed(facts, rules),
  };
}

/** The pharmacy holds no permit in the state (docs/shipping.md#licensed-states). */
function stateNotLicensed(state: string | null, licence: StateLicence, env: Environment): AppError | null {
  if (isLicensed(state, licence, env)) return null;
  const named = state ?? '';
  return new AppError(
    'STATE_NOT_LICENSED',
    400,
    `The pharmacy is not licensed to ship to ${named}: route this order to another pharmacy (see GET /api/external/licensed-states)`,
    { state: named },
  );
}

/** A controlled-schedule entry needs a prescriber with a DEA number. */
function missingDeaNumber(facts: DestinationFacts): Problem | null {
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
function restrictedState(facts: DestinationFacts): AppError | null {
  const state = facts.state;
  if (!state) return null;
  const restricted = facts.items.filter((item) => restrictedStatesOf(item.entry?.restricted_states ?? null).includes(state));
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

/** With REQUIRE_PRESCRIBER_STATE_LICENSE: the prescriber holds a licence in the patient's state, unexpired today. */
function prescriberNotLicensed(facts: DestinationFacts, rules: DestinationRules): AppError | null {
  const { state, prescriber } = facts;
  if (!rules.requireStateLicense || !state || !prescriber) return null;
  if (holdsLicenceIn(credentialsOf(prescriber).licenses, state, rules.today)) return null;
  return new AppError(
    'PRESCRIBER_NOT_LICENSED',
    400,
    `The prescriber holds no unexpired licence in ${state}, the patient\u2019s state: add it (PUT /api/external/practitioner/{id}/credentials) or have a prescriber licensed there order`,
    { state, practitioner_id: `holds no licence in ${state} valid on ${rules.today}` },
  );
}
