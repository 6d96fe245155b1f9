import type { Resource, ResourceType } from '@medplum/fhirtypes';
import type { AuditedResource } from '../audit/audit-vocabulary.js';
import type { Scope } from '../clinics/scopes.js';
import type { AuditedReadContext } from '../context.js';

/*
 * The FHIR R4 API's resources (docs/fhir.md): each resource type is one `FhirResourceKind`, which says
 * what it is built from, the scope that reads it, the search parameters it takes, and how to read one
 * by id and search a page within the caller's clinic. The routes (fhir.routes.ts), the
 * CapabilityStatement (capability-statement.ts) and the SMART scopes (smart-scopes.ts) all read the
 * same list (fhir-resources.ts), so that what is advertised is what is served.
 *
 * `@medplum/fhirtypes` is a dev dependency used for its types only: nothing of it exists at run time.
 */

/* A search as fhir-search.ts parses and checks it: what the kinds apply. */

export interface TokenValue {
  /** `system|code`: the system, or '' for `|code` (no system); undefined when only the code was given. */
  readonly system?: string;
  readonly code: string;
}

/** A date given to day, month or year precision, as the inclusive range of days it covers. */
export interface DateValue {
  readonly prefix: 'eq' | 'ne' | 'lt' | 'gt' | 'le' | 'ge';
  /** The first day the value covers (YYYY-MM-DD). */
  readonly start: string;
  /** The last day the value covers (YYYY-MM-DD). */
  readonly end: string;
}

export type SearchCriterion =
  | { readonly type: 'token'; readonly values: readonly TokenValue[] }
  | { readonly type: 'string'; readonly modifier: 'exact' | 'contains' | undefined; readonly values: readonly string[] }
  | { readonly type: 'date'; readonly values: readonly DateValue[] }
  /** The ids referred to (`patient=Patient/123`, `patient=123` and an absolute URL all give `123`). */
  | { readonly type: 'reference'; readonly values: readonly string[] };

export interface SearchQuery {
  /** The criteria given, by parameter name (every criterion must hold; a criterion's values are alternatives). */
  readonly criteria: ReadonlyMap<string, SearchCriterion>;
  /** The `_include` values given (each among the resource's `includes`). */
  readonly include: readonly string[];
}

/** The kinds of search parameter we implement (FHIR R4 §3.1.1.4, "Search parameter types"). */
export type SearchParamType = 'token' | 'string' | 'date' | 'reference';

export interface SearchParamDefinition {
  /** As it appears in the query string (`patient`, `birthdate`, `_id`). */
  readonly name: string;
  readonly type: SearchParamType;
  /** One line for the CapabilityStatement's `searchParam.documentation` and docs/fhir.md. */
  readonly documentation: string;
  /** The canonical SearchParameter (`http://hl7.org/fhir/SearchParameter/Patient-name`), when one is base FHIR's or US Core's. */
  readonly definition?: string;
  /** For a token with a closed value set (`status`): the codes it admits. Anything else is a 400. */
  readonly codes?: readonly string[];
  /** For a reference: the resource type it points to (`patient` → Patient). */
  readonly target?: ResourceType;
}

/** One page of a search: the matches in order, their total, and what to audit. */
export interface SearchPage<R extends Resource = Resource> {
  /** The page's matches, at most `count`, in the order the cursor continues. */
  readonly matches: R[];
  /** Every match of the search across all pages (Bundle.total). */
  readonly total: number;
  /** True when a further page exists (then the last match's id continues the search). */
  readonly hasMore: boolean;
  /** Resources asked for with `_include` (search.mode `include`), deduplicated. */
  readonly included?: Resource[];
  /** The records read, recorded in the audit trail as the caller's reads. */
  readonly audit: AuditedResource[];
}

export interface ReadResult<R extends Resource = Resource> {
  readonly resource: R;
  readonly audit: AuditedResource[];
}

/** How a search continues: strictly after the last id of the previous page, ids in ascending order. */
export interface SearchPaging {
  readonly count: number;
  readonly afterId: string | null;
}

export interface FhirResourceKind<R extends Resource = Resource> {
  readonly type: ResourceType;
  /** Our scope a restricted credential needs to read it (SMART `system/<type>.rs` maps onto it). */
  readonly scope: Scope;
  /** The search parameters it takes, beyond `_count` and the continuation (fhir-search.ts). */
  readonly searchParams: readonly SearchParamDefinition[];
  /** The `_include` values it takes (`MedicationRequest:medication`). */
  readonly includes?: readonly string[];
  /** The resource with this id in the clinic, or undefined (404, whether unknown or another clinic's). */
  read(ctx: AuditedReadContext, clinicId: string, id: string): Promise<ReadResult<R> | undefined>;
  /** A page of the clinic's matches of a parsed, validated query, ids ascending. */
  search(ctx: AuditedReadContext, clinicId: string, query: SearchQuery, paging: SearchPaging): Promise<SearchPage<R>>;
}
