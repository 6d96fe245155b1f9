import type { FhirResourceKind } from './fhir-resource.js';
import { medicationDispenseKind } from './medication-dispense.fhir.js';
import { medicationRequestKind } from './medication-request.fhir.js';
import { medicationKind } from './medication.fhir.js';
import { organizationKind } from './organization.fhir.js';
import { patientKind } from './patient.fhir.js';
import { practitionerKind } from './practitioner.fhir.js';

/** Every resource type the FHIR API serves, in the CapabilityStatement's order (docs/fhir.md). */
export const FHIR_RESOURCES: readonly FhirResourceKind[] = [
  patientKind,
  practitionerKind,
  organizationKind,
  medicationKind,
  medicationRequestKind,
  medicationDispenseKind,
] as readonly FhirResourceKind[];
