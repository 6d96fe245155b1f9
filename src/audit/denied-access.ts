import type { AuditedReadContext } from '../context.js';
import { AppError, type ErrorDetails } from '../errors.js';
import type { AuditContext } from './audit-actor.js';
import { findClinicOfRecordUnscoped, type ClinicRecordType } from './denied-access.repository.js';

/*
 * A partner's attempt at another clinic's record (issue 21, item 6). The partner is answered 404,
 * exactly as for an id that exists nowhere (same status, message and body: nothing tells it the
 * record exists), and the attempt is written to the audit trail as `access_denied`, naming the
 * record and its real clinic. The cost stays on the 404 path: the service's scoped query found
 * nothing, and only then is the record looked up unscoped (one primary-key query).
 */

/** A record a partner named by id. */
export interface NamedRecord {
  readonly type: ClinicRecordType;
  readonly id: string;
}

/**
 * The 404 of a partner's request for records not found in its clinic: an AppError like any other
 * (the same envelope as `notFound`), which also carries the ids asked for, so that the error handler
 * can record a denied access when one of them belongs to another clinic (http/denied-access.ts).
 * The ids are never serialized: `records` is not part of the envelope.
 */
export class NotFoundInClinic extends AppError {
  constructor(
    readonly records: readonly NamedRecord[],
    message: string,
    details?: ErrorDetails,
  ) {
    super('NOT_FOUND', 404, message, details);
  }
}

/** `notFound(message)` for a record the caller named by id in its clinic. */
export const notFoundIn = (record: NamedRecord, message: string, details?: ErrorDetails): NotFoundInClinic =>
  new NotFoundInClinic([record], message, details);

/**
 * Records `access_denied` for each named record that exists in a clinic other than the actor's;
 * an id that exists nowhere leaves no row. Resolves once the rows are committed (the read buffer's
 * group commit); rejects when they cannot be (the caller still answers its 404).
 */
export async function recordDeniedAccess(
  ctx: AuditedReadContext,
  audit: AuditContext,
  callerClinicId: string,
  records: readonly NamedRecord[],
): Promise<void> {
  const found = await Promise.all(
    records.map(async (record) => ({ record, clinicId: await findClinicOfRecordUnscoped(ctx.db, record.type, record.id) })),
  );
  const denied = found.filter(
    (entry): entry is { record: NamedRecord; clinicId: string } =>
      entry.clinicId !== undefined && entry.clinicId !== callerClinicId,
  );
  await ctx.audit.recordDenied(
    audit,
    denied.map(({ record, clinicId }) => ({ type: record.type, id: record.id, clinicId })),
  );
}
