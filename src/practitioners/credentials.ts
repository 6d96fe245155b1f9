/**
 * A prescriber's credentials (issue 30, item 8; docs/practitioners-and-patients.md#credentials): the
 * DEA number and the state licences, as stored (migration 024) and as the API shows them. Pure.
 */
import type { ErrorDetails } from '../errors.js';
import { deaNumberProblem, normalizeDeaNumber } from './dea-number.js';
import type { PractitionerTable } from './practitioner.tables.js';

/** One state licence: `expires_on` is the last day it is valid (YYYY-MM-DD). */
export interface StateLicense {
  state_code: string;
  number: string;
  expires_on: string;
}

/** The credentials as the API shows them: no DEA number is null, no licence an empty list. */
export interface Credentials {
  dea_number: string | null;
  licenses: StateLicense[];
}

/** The credentials' columns (practitioners.dea_number, practitioners.licenses as JSON text). */
export type CredentialColumns = Required<Pick<PractitionerTable, 'dea_number' | 'licenses'>>;

/** The credentials a row holds. */
export function credentialsOf(row: Pick<PractitionerTable, 'dea_number' | 'licenses'>): Credentials {
  return {
    dea_number: row.dea_number ?? null,
    licenses: row.licenses ? (JSON.parse(row.licenses) as StateLicense[]) : [],
  };
}

/**
 * The columns of credentials a body gave (its schema checked the shapes), or the fields that break
 * a rule: a DEA number must have a known registrant type and a right check digit (dea-number.ts).
 * The DEA number and the state codes are stored upper case, the licence numbers trimmed.
 */
export function credentialColumns(input: {
  dea_number?: string | null | undefined;
  licenses?: readonly StateLicense[] | undefined;
}): { columns: CredentialColumns; problems: null } | { columns: null; problems: ErrorDetails } {
  const dea = input.dea_number === undefined || input.dea_number === null ? null : normalizeDeaNumber(input.dea_number);
  const problem = dea === null ? null : deaNumberProblem(dea);
  if (problem !== null) return { columns: null, problems: { dea_number: problem } };
  const licenses = (input.licenses ?? []).map((licence) => ({
    state_code: licence.state_code.trim().toUpperCase(),
    number: licence.number.trim(),
    expires_on: licence.expires_on,
  }));
  return { columns: { dea_number: dea, licenses: licenses.length > 0 ? JSON.stringify(licenses) : null }, problems: null };
}

/** True when one of `licenses` is in `state` and not expired on `today` (YYYY-MM-DD; valid through `expires_on`). */
export function holdsLicenceIn(licenses: readonly StateLicense[], state: string, today: string): boolean {
  return licenses.some((licence) => licence.state_code === state && licence.expires_on >= today);
}
