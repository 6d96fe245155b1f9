import type { CapabilityStatement, CapabilityStatementRestResource } from '@medplum/fhirtypes';
import type { FhirResourceKind } from './fhir-resource.js';

/** When this statement last changed (CapabilityStatement.date): with the FHIR API's first release. */
const STATEMENT_DATE = '2026-11-27';

/** US Core's profile of each resource type we serve, where US Core has one. */
const US_CORE_PROFILE: Partial<Record<string, string>> = {
  Patient: 'http://hl7.org/fhir/us/core/StructureDefinition/us-core-patient',
  Practitioner: 'http://hl7.org/fhir/us/core/StructureDefinition/us-core-practitioner',
  Organization: 'http://hl7.org/fhir/us/core/StructureDefinition/us-core-organization',
  Medication: 'http://hl7.org/fhir/us/core/StructureDefinition/us-core-medication',
  MedicationRequest: 'http://hl7.org/fhir/us/core/StructureDefinition/us-core-medicationrequest',
  MedicationDispense: 'http://hl7.org/fhir/us/core/StructureDefinition/us-core-medicationdispense',
};

/**
 * GET /fhir/R4/metadata (issue 32, item 1): what this server does, built from the same resource kinds
 * the routes serve, so that it cannot advertise what is not there: each type read by id and searched,
 * with its search parameters and `_include`s, behind SMART backend services (client credentials).
 */
export function capabilityStatement(
  kinds: readonly FhirResourceKind[],
  where: { baseUrl: string; tokenUrl: string; softwareVersion: string },
): CapabilityStatement {
  const { baseUrl, tokenUrl, softwareVersion } = where;
  return {
    resourceType: 'CapabilityStatement',
    status: 'active',
    date: STATEMENT_DATE,
    publisher: 'Partner Healthcare Fulfillment API',
    kind: 'instance',
    software: { name: 'Partner Healthcare Fulfillment API', version: softwareVersion },
    implementation: { description: 'A compounding pharmacy\u2019s orders, patients and fills, read-only', url: baseUrl },
    fhirVersion: '4.0.1',
    format: ['json', 'application/fhir+json'],
    rest: [
      {
        mode: 'server',
        documentation:
          'Read-only. Every request carries a Bearer access token from the token endpoint (SMART backend services) or an x-api-key.',
        security: {
          cors: false,
          service: [
            {
              coding: [{ system: 'http://terminology.hl7.org/CodeSystem/restful-security-service', code: 'SMART-on-FHIR' }],
              text: 'OAuth 2.0 client credentials with private_key_jwt (SMART backend services); see /.well-known/smart-configuration',
            },
          ],
          extension: [
            {
              url: 'http://fhir-registry.smarthealthit.org/StructureDefinition/oauth-uris',
              extension: [{ url: 'token', valueUri: tokenUrl }],
            },
          ],
        },
        resource: kinds.map(resourceOf),
      },
    ],
  };
}

function resourceOf(kind: FhirResourceKind): CapabilityStatementRestResource {
  const profile = US_CORE_PROFILE[kind.type];
  return {
    type: kind.type,
    ...(profile ? { supportedProfile: [profile] } : {}),
    interaction: [{ code: 'read' }, { code: 'search-type' }],
    versioning: 'no-version',
    readHistory: false,
    updateCreate: false,
    ...(kind.includes && kind.includes.length > 0 ? { searchInclude: [...kind.includes] } : {}),
    searchParam: [
      ...kind.searchParams.map((param) => ({
        name: param.name,
        type: param.type,
        ...(param.definition ? { definition: param.definition } : {}),
        documentation: param.documentation,
      })),
      { name: '_count', type: 'number', documentation: 'Matches per page: 1 to 100, 50 by default' },
    ],
  };
}
