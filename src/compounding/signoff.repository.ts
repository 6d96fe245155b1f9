import type { DbOrTrx } from '../db/database.js';
import { insertRows } from '../db/row-insert.js';
import type { Write, WriteTarget } from '../db/write.js';
import type { OrderSignoffTable } from './compounding.tables.js';

export function signoffInsert(change: WriteTarget, row: OrderSignoffTable): Write {
  return insertRows(change.statements, 'order_signoffs', [row]);
}

/** An order's sign-offs, oldest first. */
export async function listSignoffs(db: DbOrTrx, orderId: string): Promise<OrderSignoffTable[]> {
  return db
    .selectFrom('order_signoffs')
    .selectAll()
    .where('medication_request_id', '=', orderId)
    .orderBy('at')
    .orderBy('id')
    .execute();
}

export async function findSignoff(db: DbOrTrx, orderId: string, kind: string): Promise<OrderSignoffTable | undefined> {
  return db
    .selectFrom('order_signoffs')
    .selectAll()
    .where('medication_request_id', '=', orderId)
    .where('kind', '=', kind)
    .executeTakeFirst();
}
