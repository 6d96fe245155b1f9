import { randomUUID } from 'node:crypto';
import type { DbOrTrx } from '../../src/db/database.js';

/*
 * A test fixture, not the fill: it writes the rows `POST /api/admin/medication-requests/{id}/fill`
 * writes (migration 024's medication_item_fills and fill_ingredient_lots) straight into the
 * database (the test app's, or a server process's: process-database.ts inDatabase), so that the
 * recall can be tested on orders made over HTTP without the fill's route.
 * Only what the recall reads is meaningful; the rest holds valid constants.
 */

export interface FixtureIngredientLot {
  ingredient: string;
  lot_number: string;
  expires_on?: string;
}

export interface FixtureFill {
  /** The order's item at this position (0: its first). */
  position?: number;
  lot_number: string;
  compounded_at?: string;
  beyond_use_date?: string | null;
  ingredient_lots?: FixtureIngredientLot[];
}

/** Writes one fill per entry of `fills` for the order's items (by position), with their ingredient lots; returns the items' ids. */
export async function insertFillRowsFixture(db: DbOrTrx, orderId: string, fills: FixtureFill[]): Promise<string[]> {
  const order = await db
    .selectFrom('medication_requests')
    .select(['id', 'clinic_id'])
    .where('id', '=', orderId)
    .executeTakeFirstOrThrow();
  const items = await db
    .selectFrom('medication_items as i')
    .innerJoin('prescriptions as p', 'p.id', 'i.prescription_id')
    .select(['i.id', 'i.medication_id', 'i.position'])
    .where('p.medication_request_id', '=', orderId)
    .orderBy('i.position')
    .execute();
  const ids: string[] = [];
  for (const fill of fills) {
    const item = items[fill.position ?? 0];
    if (!item) throw new Error(`order ${orderId} has no item at position ${fill.position ?? 0}`);
    const fillId = randomUUID();
    await db
      .insertInto('medication_item_fills')
      .values({
        id: fillId,
        medication_request_id: order.id,
        medication_item_id: item.id,
        clinic_id: order.clinic_id,
        medication_id: item.medication_id,
        lot_number: fill.lot_number,
        compounded_at: fill.compounded_at ?? '2030-01-02T15:00:00.000Z',
        beyond_use_date: fill.beyond_use_date === undefined ? '2030-02-06' : fill.beyond_use_date,
        storage: 'room',
        generated: 0,
        filled_by_id: null,
        filled_by_name: null,
        created_at: '2030-01-02T15:00:00.000Z',
      })
      .execute();
    for (const [position, lot] of (fill.ingredient_lots ?? []).entries()) {
      await db
        .insertInto('fill_ingredient_lots')
        .values({
          id: randomUUID(),
          fill_id: fillId,
          medication_request_id: order.id,
          clinic_id: order.clinic_id,
          position,
          ingredient: lot.ingredient,
          lot_number: lot.lot_number,
          expires_on: lot.expires_on ?? '2031-01-01',
        })
        .execute();
    }
    ids.push(item.id);
  }
  return ids;
}
