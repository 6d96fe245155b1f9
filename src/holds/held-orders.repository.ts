import { sql, type SqlBool } from 'kysely';
import type { DbOrTrx } from '../db/database.js';
import { isStoredPosition, newerThan, type PagePosition } from '../db/keyset-page.js';
import { fieldError } from '../errors.js';
import type { OrderTable } from '../orders/order.tables.js';

/*
 * The portal's "Needs your answer" list: one query of its own over the clinic's orders on hold
 * (the list of a use case, not the order feature's repository). The orders waiting on the partner
 * come first, then those waiting on the pharmacy, each part oldest hold first.
 */

/** Which part of the list a row is in: the partner's to answer, or the pharmacy's to act on. */
export type HoldPart = 'partner' | 'pharmacy';

/** The last row a page showed: its part, when its hold began and its id. Opaque to clients. */
export interface HoldPosition {
  part: HoldPart;
  at: PagePosition;
}

const PART_CODES = { partner: 'a', pharmacy: 'b' } as const;

export function encodeHoldCursor(position: HoldPosition): string {
  const value = [PART_CODES[position.part], position.at.createdAt, position.at.id];
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}

/** The position a cursor of this list stands for; anything else is a 400 on `cursor`. */
export function decodeHoldCursor(cursor: string): HoldPosition {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (
      Array.isArray(value) &&
      value.length === 3 &&
      (value[0] === 'a' || value[0] === 'b') &&
      isStoredPosition(value[1], value[2])
    ) {
      return { part: value[0] === 'a' ? 'partner' : 'pharmacy', at: { createdAt: value[1] as string, id: value[2] as string } };
    }
  } catch {
    // Falls through to the validation error.
  }
  throw fieldError('cursor', 'is not a cursor this API returned (pass next_cursor from the previous page)');
}

/** The part of a held order: anything not waiting on the partner is the pharmacy's. */
export const partOf = (order: Pick<OrderTable, 'hold_waiting_on'>): HoldPart =>
  order.hold_waiting_on === 'partner' ? 'partner' : 'pharmacy';

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
