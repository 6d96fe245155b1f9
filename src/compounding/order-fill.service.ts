import type { AuditContext } from '../audit/audit-actor.js';
import { runChange } from '../changes/run-change.js';
import type { ServiceContext } from '../context.js';
import { constraintViolation } from '../db/constraints.js';
import { conflict, invalidFields, notFound } from '../errors.js';
import { fillRows, writeFills, type FilledBy } from './order-fill-record.js';
import { listItemsToFill, touchOrderIf } from './order-fill.repository.js';
import { fillProblems, storedForm } from './order-fill.rules.js';
import type { FillInput } from './order-fill.schemas.js';
import type { OrderStatus } from '../orders/order-status.js';
import type { OrderTable } from '../orders/order.tables.js';
import * as repo from '../orders/order.repository.js';
import { collapseSpaces } from '../shared/text.js';

/**
 * The statuses in which an order may be filled: the pharmacist compounds in `processing`, and an
 * order held in processing (waiting for an answer, for stock) may be filled meanwhile. A `pending`
 * order has not been taken up yet; a shipped, delivered or cancelled one is past it.
 */
export const FILLABLE_STATUSES: readonly OrderStatus[] = ['processing', 'on_hold'];

/**
 * POST /api/admin/medication-requests/{id}/fill (docs/compounding.md#the-fill): records, for each
 * item named, its lot, when it was compounded and the ingredient lots used; the server computes
 * the beyond-use date from the item's formulary entry and records its storage. One change, audited
 * as an `update` of the order, with the staff member's id and name (none for the operator token).
 * Bad input is a 400 naming the field and writes nothing; an item already filled is a 409. The
 * order's `updated_at` becomes the fill's time (a partner polling it sees the change). Returns the
 * order as it was read, before the fill.
 */
export async function fillOrder(
  ctx: ServiceContext,
  orderId: string,
  input: FillInput,
  audit: AuditContext,
): Promise<OrderTable> {
  const by: FilledBy =
    audit.actor.type === 'staff' ? { id: audit.actor.staffId, name: audit.actor.name } : { id: null, name: null };
  try {
    return await runChange(ctx, audit, async (change) => {
      const trx = await change.transaction();
      const current = await repo.findOrderUnscoped(trx, orderId);
      if (!current) throw notFound('Medication request not found');
      if (!(await touchOrderIf(trx, current.id, FILLABLE_STATUSES, change.at))) {
        // Read again: the order may have moved since it was read.
        throw notFillable((await repo.findOrderUnscoped(trx, current.id))?.status ?? current.status);
      }
      const items = await listItemsToFill(trx, current.id);
      const timeZone = ctx.config.pharmacyTimeZone;
      const { invalid, filled } = fillProblems(input, items, ctx.clock(), timeZone);
      if (Object.keys(invalid).length > 0) throw invalidFields(invalid);
      if (Object.keys(filled).length > 0) throw alreadyFilled(filled);
      const itemOf = new Map(items.map((item) => [item.id, item]));
      writeFills(
        change,
        input.items.flatMap((entry) => {
          const item = itemOf.get(entry.item_id);
          const compoundedAt = storedForm(entry.compounded_at);
          // fillProblems refused both already; the guard tells the type checker.
          if (item === undefined || compoundedAt === null) return [];
          const record = {
            lot_number: entry.lot_number,
            compounded_at: compoundedAt,
            ingredient_lots: (entry.ingredient_lots ?? []).map((lot) => ({
              ...lot,
              ingredient: collapseSpaces(lot.ingredient),
            })),
          };
          return [fillRows(current, item, record, change.at, by, false, timeZone)];
        }),
      );
      change.audit('update', { type: 'medication_request', id: current.id, clinicId: current.clinic_id });
      return current;
    });
  } catch (error) {
    // Two fills of one item sent together: the unique item key lets one commit.
    if (constraintViolation(error) === 'unique') throw alreadyFilled({ items: 'an item named was filled meanwhile' });
    throw error;
  }
}

const notFillable = (status: string) =>
  conflict(`The medication request is ${status}: only a processing or on_hold order can be filled`, {
    status: `is ${status}; a fill needs ${FILLABLE_STATUSES.join(' or ')}`,
  });

const alreadyFilled = (details: Record<string, string>) =>
  conflict(
    `Already filled: ${Object.entries(details)
      .map(([field, problem]) => `${field} ${problem}`)
      .join('; ')}`,
    details,
  );
