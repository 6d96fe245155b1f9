import type { Scope } from '../clinics/scopes.js';

/**
 * The one table from a FHIR resource type to the scope of ours that reads it: the FHIR routes declare
 * it as their `x-required-scope`, and the token endpoint turns a SMART scope (`system/Patient.rs`)
 * into it, so that a token carries our scopes only and the partner guard enforces them as for any key.
 * Organization is the clinic and its practitioners' employer, read with the practitioners.
 */
export const FHIR_RESOURCE_SCOPES = {
  Patient: 'patients:read',
  Practitioner: 'practitioners:read',
  Organization: 'practitioners:read',
  Medication: 'formulary:read',
  MedicationRequest: 'orders:read',
  MedicationDispense: 'orders:read',
} as const satisfies Record<string, Scope>;

export type FhirResourceType = keyof typeof FHIR_RESOURCE_SCOPES;
export const FHIR_RESOURCE_TYPES = Object.keys(FHIR_RESOURCE_SCOPES) as FhirResourceType[];

/** The SMART v2 scopes this server grants (`scopes_supported`): each type's read-and-search, and all of them at once. */
export const SMART_SCOPES_SUPPORTED: readonly string[] = [
  ...FHIR_RESOURCE_TYPES.map((type) => `system/${type}.rs`),
  'system/*.rs',
];

/** A SMART scope as asked: the resource type (`*` for all) and how it was written (v2 `.rs` or v1 `.read`). */
export interface SmartScope {
  readonly type: FhirResourceType | '*';
  readonly suffix: 'rs' | 'read';
}

/** Why a SMART-looking scope is refused, for `invalid_scope`'s description; or the scope. */
export type SmartScopeReading = { readonly scope: SmartScope } | { readonly refusal: string };

/** `system/`, `patient/` or `user/`, then a type or `*`, then `.` and permissions (v1 `read`/`write`/`*`, v2 letters of `cruds`). */
const SMART_FORM = /^(system|patient|user)\/([A-Za-z]+|\*)\.([a-z*]+)(\?.*)?$/;
/** v1's `write` and `*`, or v2 letters of `cruds` with a create, update or delete among them. */
const WRITES = /^(write|\*|c?r?u?d?s?)$/;

/**
 * Reads a scope of SMART App Launch 2 (`system/Patient.rs`, `system/*.rs`) or its v1 form
 * (`system/Patient.read`); null when `name` is not of SMART's form at all (a scope of ours, or
 * unknown). Only `system/` (backend services), read with search, of the six types, without query
 * parameters: anything else of SMART's form is a refusal that says why.
 *
 * @see https://hl7.org/fhir/smart-app-launch/scopes-and-launch-context.html
 */
export function readSmartScope(name: string): SmartScopeReading | null {
  const match = SMART_FORM.exec(name);
  if (!match) return null;
  const [, context = '', type = '', permissions = '', query] = match;
  if (context !== 'system') return { refusal: 'only system/ scopes are granted here (SMART backend services)' };
  // Own keys only: `constructor` or `toString` are no resource types.
  if (type !== '*' && !Object.hasOwn(FHIR_RESOURCE_SCOPES, type)) {
    return {
      refusal: `this FHIR server has no resource type ${type.slice(0, 100)} (it serves ${FHIR_RESOURCE_TYPES.join(', ')})`,
    };
  }
  if (permissions !== 'rs' && permissions !== 'read') {
    const writes = WRITES.test(permissions) && !/^r?s?$/.test(permissions);
    return {
      refusal: writes ? 'this FHIR server is read-only: ask for .rs' : 'read and search are granted together: ask for .rs',
    };
  }
  if (query !== undefined) return { refusal: 'scopes with search parameters are not supported: ask for the whole type' };
  return { scope: { type: type as FhirResourceType | '*', suffix: permissions } };
}

/** A SMART scope written out for one type, in the form the client used. */
export function smartScopeName(type: FhirResourceType, suffix: SmartScope['suffix']): string {
  return `system/${type}.${suffix}`;
}
