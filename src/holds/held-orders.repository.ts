import { sql, type SqlBool } from 'kysely';
import type { DbOrTrx } from '../db/database.js';
import { newerThan } from '../db/keyset-page.js';
import type { OrderTable } from '../orders/order.tables.js';
import { partOf, type HoldPart, type HoldPosition } from './held-orders-cursor.js';

/*
 * The clinic's orders on hold, as the portal's "Needs your answer" lists them (held-orders.service.ts):
 * the orders waiting on the partner first, then those waiting on the pharmacy, each part oldest hold first.
 */

const waitingOnPartner = sql<SqlBool>`${sql.ref('hold_waiting_on')} = ${'partner'}`;
const notWaitingOnPartner = sql<SqlBool>`(${sql.ref('hold_waiting_on')} is null or ${sql.ref('hold_waiting_on')} <> ${'partner'})`;

/**
 * A page of the clinic's orders on hold after `after`: waiting on the partner first, then the
 * others, each part by (hold_since, id). `limit` rows at most (the caller asks one more than it shows).
 */
export async function listHeldOrdersOfClinic(
  db: DbOrTrx,
  clinicId: string,
  filter: { after?: HoldPosition | undefined; limit: number },
): Promise<OrderTable[]> {
  const since = { createdAt: 'hold_since', id: 'id' };
  let query = db.selectFrom('medication_requests').selectAll().where('clinic_id', '=', clinicId).where('status', '=', 'on_hold');
  const { after } = filter;
  if (after?.part === 'partner') {
    query = query.where((eb) => eb.or([eb.and([waitingOnPartner, newerThan(since, after.at)]), notWaitingOnPartner]));
  } else if (after?.part === 'pharmacy') {
    query = query.where(notWaitingOnPartner).where(newerThan(since, after.at));
  }
  return query
    .orderBy(sql`case when ${sql.ref('hold_waiting_on')} = ${'partner'} then 0 else 1 end`)
    .orderBy('hold_since')
    .orderBy('id')
    .limit(filter.limit)
    .execute();
}

/** How many of the clinic's orders on hold wait on the partner, and how many on the pharmacy. */
export async function countHeldOrdersOfClinic(db: DbOrTrx, clinicId: string): Promise<Record<HoldPart, number>> {
  const rows = await db
    .selectFrom('medication_requests')
    .select((eb) => ['hold_waiting_on', eb.fn.countAll<number | string | bigint>().as('count')])
    .where('clinic_id', '=', clinicId)
    .where('status', '=', 'on_hold')
    .groupBy('hold_waiting_on')
    .execute();
  const counts: Record<HoldPart, number> = { partner: 0, pharmacy: 0 };
  for (const row of rows) counts[partOf(row)] += Number(row.count);
  return counts;
}
