// The audit trail of the composite ceilings, as the project keeps it (src/audit/): a change's row is
// written with the change (`auditRow` gives its parameters); a read's row is committed before its
// answer leaves, by group commit: the reads of one turn of the event loop share one INSERT … ON
// CONFLICT (id) DO NOTHING of at most 500 rows (src/audit/audit-buffer.ts, audit.repository.ts).
import { setImmediate } from 'node:timers';
import { v7 as uuidv7 } from 'uuid';

const COLUMNS =
  'id, at, actor_type, actor_id, actor_email, clinic_id, action, resource_type, resource_id, request_id, client_address';
const ROW = `(${COLUMNS.split(', ')
  .map(() => '?')
  .join(', ')})`;
const CHUNK = 500;

/** The INSERT of one audit row, for a change's transaction. */
export const AUDIT_INSERT = `INSERT INTO audit_events (${COLUMNS}) VALUES ${ROW}`;

/** One row's parameters: `partner` did `action` to `resource` at `at` (ids only, never PHI). */
export const auditRow = (at, { partner, requestId, clientAddress }, action, resource) => [
  uuidv7(),
  at,
  'partner',
  partner.apiKeyId,
  null,
  partner.clinicId,
  action,
  resource.type,
  resource.id,
  requestId,
  clientAddress,
];

/**
 * The read trail by group commit: `recordRead` resolves once the row is committed (the answer waits
 * for it). Rows recorded in one turn of the event loop share one INSERT (at most 500 rows each);
 * rows recorded while one is being written go together in the next, at once.
 */
export function readAuditBuffer(db) {
  let open = null;
  let writing = false;
  const newBatch = () => {
    const batch = { rows: [] };
    batch.written = new Promise((resolve, reject) => Object.assign(batch, { resolve, reject }));
    batch.written.catch(() => undefined);
    return batch;
  };
  const writeOpen = async () => {
    if (writing) return;
    writing = true;
    try {
      while (open !== null) {
        const batch = open;
        open = null;
        try {
          for (let i = 0; i < batch.rows.length; i += CHUNK) {
            const chunk = batch.rows.slice(i, i + CHUNK);
            await db.run(
              `bench_audit_reads_${chunk.length}`,
              `INSERT INTO audit_events (${COLUMNS}) VALUES ${chunk.map(() => ROW).join(', ')} ON CONFLICT (id) DO NOTHING`,
              chunk.flat(),
            );
          }
          batch.resolve();
        } catch (error) {
          batch.reject(error);
        }
      }
    } finally {
      writing = false;
    }
  };
  return {
    recordRead(context, resource) {
      if (open === null) {
        open = newBatch();
        if (!writing) setImmediate(() => void writeOpen());
      }
      open.rows.push(auditRow(new Date().toISOString(), context, 'read', resource));
      return open.written;
    },
    async close() {
      await writeOpen();
    },
  };
}
