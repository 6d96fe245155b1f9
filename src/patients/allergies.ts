/**
 * The patient's allergies as stored (migration 024: `patients.allergies`, JSON, and
 * `patients.no_known_allergies`, 0/1) and as the API reads and writes them (issue 30, item 6;
 * docs/practitioners-and-patients.md#allergies). Pure: no I/O.
 *
 * Never given: both columns null, read as `allergies: null, no_known_allergies: false` (unknown, not
 * "none"). Given: the list (possibly empty) and the flag, read back as written.
 */
import { fieldError } from '../errors.js';
import { blankToNull, collapseSpaces } from '../shared/text.js';
import type { AllergyInput, AllergySeverity } from './patient.schemas.js';
import type { PatientTable } from './patient.tables.js';

/** One allergy as stored and read: absent fields are null. */
export interface Allergy {
  substance: string;
  reaction: string | null;
  severity: AllergySeverity | null;
}

type AllergyColumns = Required<Pick<PatientTable, 'allergies' | 'no_known_allergies'>>;

/** The columns of a patient whose body said nothing of allergies. */
export const ALLERGIES_NOT_GIVEN: AllergyColumns = Object.freeze({ allergies: null, no_known_allergies: null });

/**
 * The columns for what a body gave (either field may be absent on create), or a 400 naming
 * `no_known_allergies` when it is true beside a non-empty list.
 */
export function allergyColumns(input: {
  allergies?: readonly AllergyInput[] | undefined;
  no_known_allergies?: boolean | undefined;
}): AllergyColumns {
  if (input.allergies === undefined && input.no_known_allergies === undefined) return { ...ALLERGIES_NOT_GIVEN };
  const list = (input.allergies ?? []).map((a): Allergy => ({
    substance: collapseSpaces(a.substance),
    reaction: blankToNull(a.reaction),
    severity: a.severity ?? null,
  }));
  const none = input.no_known_allergies === true;
  if (none && list.length > 0) {
    throw fieldError('no_known_allergies', 'cannot be true with allergies listed: send an empty allergies list, or false');
  }
  return { allergies: JSON.stringify(list), no_known_allergies: none ? 1 : 0 };
}

/** The recorded allergies of a row; null when never given. */
export function allergiesOf(row: Pick<PatientTable, 'allergies'>): Allergy[] | null {
  return row.allergies === null || row.allergies === undefined ? null : (JSON.parse(row.allergies) as Allergy[]);
}
