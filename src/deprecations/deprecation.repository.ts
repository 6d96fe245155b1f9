import type { DbOrTrx } from '../db/database.js';
import type { DeprecationUsageTable } from './deprecation.tables.js';

/** Rows per INSERT: 7 values each, well under both drivers' limits on bound parameters. */
const ROWS_PER_STATEMENT = 500;

/**
 * Adds counted uses to the table, one upsert per 500 rows: a row that exists gets the counts added
 * and its first and last sightings widened, so that instances writing at once all count (none
 * overwrites another's). Rows go in key order, so that two instances' statements lock the rows they
 * share in the same order (no deadlock on PostgreSQL). Not a change of the service's data (no
 * audit row, no event): a plain write, like the audit trail's read buffer.
 */
export async function addDeprecationUsage(db: DbOrTrx, rows: readonly DeprecationUsageTable[]): Promise<void> {
  const sorted = [...rows].sort((a, b) => compare(keyOf(a), keyOf(b)));
  for (let start = 0; start < sorted.length; start += ROWS_PER_STATEMENT) {
    await db
      .insertInto('deprecation_usage')
      .values(sorted.slice(start, start + ROWS_PER_STATEMENT))
      .onConflict((oc) =>
        oc.columns(['code', 'credential_type', 'credential_id']).doUpdateSet((eb) => ({
          use_count: eb('deprecation_usage.use_count', '+', eb.ref('excluded.use_count')),
          clinic_id: eb.ref('excluded.clinic_id'),
          first_seen_at: eb
            .case()
            .when('excluded.first_seen_at', '<', eb.ref('deprecation_usage.first_seen_at'))
            .then(eb.ref('excluded.first_seen_at'))
            .else(eb.ref('deprecation_usage.first_seen_at'))
            .end(),
          last_seen_at: eb
            .case()
            .when('excluded.last_seen_at', '>', eb.ref('deprecation_usage.last_seen_at'))
            .then(eb.ref('excluded.last_seen_at'))
            .else(eb.ref('deprecation_usage.last_seen_at'))
            .end(),
        })),
      )
      .execute();
  }
}

/** The uses of these codes, the most recently seen first. An unscoped read: the operator's view across clinics. */
export async function listDeprecationUsage(db: DbOrTrx, codes: readonly string[]): Promise<DeprecationUsageTable[]> {
  if (codes.length === 0) return [];
  return db
    .selectFrom('deprecation_usage')
    .selectAll()
    .where('code', 'in', codes)
    .orderBy('last_seen_at', 'desc')
    .orderBy('credential_id')
    .execute();
}

const keyOf = (row: DeprecationUsageTable): string => `${row.code}\0${row.credential_type}\0${row.credential_id}`;
const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
