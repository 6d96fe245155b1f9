import type { OperationOutcome, OperationOutcomeIssue } from '@medplum/fhirtypes';
import { AppError } from '../errors.js';

/*
 * The FHIR API's refusals (docs/fhir.md#errors): every failure answers an OperationOutcome (FHIR R4
 * §3.1.0.4) with the HTTP status the partner API would give, and the issue type FHIR names for it.
 * Thrown as AppError (so the guards, the rate limits and the denied-access audit work as on the
 * partner API), and turned into an OperationOutcome by the FHIR routes' error handler (fhir.routes.ts).
 */

/** The IssueType codes we answer with (http://hl7.org/fhir/issue-type). */
export type IssueCode =
  | 'invalid'
  | 'not-supported'
  | 'login'
  | 'forbidden'
  | 'not-found'
  | 'throttled'
  | 'too-costly'
  | 'exception'
  | 'transient'
  | 'security';

/** A refusal whose OperationOutcome issue type is not the one its status implies. */
export class FhirIssueError extends AppError {
  constructor(
    readonly issue: IssueCode,
    statusCode: number,
    message: string,
    /** The parameter or element the issue is about (OperationOutcome.issue.expression). */
    readonly expression?: string,
  ) {
    super(
      statusCode === 404 ? 'NOT_FOUND' : 'VALIDATION_ERROR',
      statusCode,
      message,
      expression ? { [expression]: message } : undefined,
    );
    this.name = 'FhirIssueError';
  }
}

/** A 400 about a search parameter's value (`_count=0`, a birthdate that is not a date). */
export const fhirInvalid = (parameter: string, message: string): FhirIssueError =>
  new FhirIssueError('invalid', 400, message, parameter);

/** A 400 for a parameter (or a form of it) this server does not implement: chained, unknown, a modifier. */
export const fhirNotSupported = (parameter: string, message: string): FhirIssueError =>
  new FhirIssueError('not-supported', 400, message, parameter);

/** The issue type of a refusal the FHIR API did not raise itself (a guard's, the framework's). */
function issueOf(error: AppError): IssueCode {
  if (error instanceof FhirIssueError) return error.issue;
  switch (error.statusCode) {
    case 401:
      return 'login';
    case 403:
      return 'forbidden';
    case 404:
      return 'not-found';
    case 405:
    case 406:
    case 415:
      return 'not-supported';
    case 413:
      return 'too-costly';
    case 429:
      return 'throttled';
    case 503:
      return 'transient';
    default:
      return error.statusCode >= 500 ? 'exception' : 'invalid';
  }
}

/** The OperationOutcome of a refusal: one issue, its text the message, its expression the field(s) named. */
export function operationOutcomeOf(error: AppError, requestId: string): OperationOutcome {
  const expression =
    error instanceof FhirIssueError && error.expression !== undefined
      ? [error.expression]
      : error.details !== undefined
        ? Object.keys(error.details)
        : [];
  const issue: OperationOutcomeIssue = {
    severity: error.statusCode >= 500 ? 'fatal' : 'error',
    code: issueOf(error),
    details: { text: error.message },
    diagnostics: `request_id=${requestId}; code=${error.code}`,
    ...(expression.length > 0 ? { expression } : {}),
  };
  return { resourceType: 'OperationOutcome', issue: [issue] };
}
