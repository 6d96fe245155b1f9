import type { Environment } from '../config.js';
import { US_STATES } from '../reference/us-states.js';

/** The 50 states and the District of Columbia: development's licensed states while none were set. */
export const STATES_AND_DC: readonly string[] = Object.freeze(
  Object.keys(US_STATES).filter((code) => !['AS', 'GU', 'MP', 'PR', 'VI', 'AA', 'AE', 'AP', 'UM'].includes(code)),
);

/**
 * The licensed states while the operator never set them: in development all 50 states and DC, so
 * that a sandbox takes orders at once; in production none, so that a pharmacy that did not say where
 * it holds permits ships nowhere (the start banner says so) instead of everywhere.
 */
export function licensedStatesWhenUnset(env: Environment): readonly string[] {
  return env === 'production' ? [] : STATES_AND_DC;
}

/** What the intake and the carrier services read know of the patient's state, read with their one query. */
export interface StateLicence {
  /** The list was set (a row in licensed_state_list). */
  listSet: boolean;
  /** The patient's state is on the set list. */
  listed: boolean;
}

/** True when the pharmacy may ship to `state` (an upper-case code, or null/blank for no state). */
export function isLicensed(state: string | null, licence: StateLicence, env: Environment): boolean {
  if (!state) return false;
  if (licence.listSet) return licence.listed;
  return licensedStatesWhenUnset(env).includes(state);
}
