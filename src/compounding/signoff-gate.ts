import type { Config } from '../config.js';
import type { DbOrTrx } from '../db/database.js';
import { conflict } from '../errors.js';
import { canTransition, type OrderStatus } from '../orders/order-status.js';
import type { OrderTable } from '../orders/order.tables.js';
import { SIGNOFF_LABELS, signoffNeededFor } from './signoff.js';
import { findSignoff } from './signoff.repository.js';

/**
 * The sign-off gate of a pharmacy's move (REQUIRE_PHARMACIST_SIGNOFF): a move to `processing` needs
 * the prescription's review, a move to `shipped` the final check; without it, 409 naming it.
 * Does nothing when sign-offs are not required, the move needs none, or is not allowed at all (its
 * own 409 says so).
 */
export async function requireSignoffFor(
  config: Pick<Config, 'requirePharmacistSignoff'>,
  db: DbOrTrx,
  order: OrderTable,
  to: OrderStatus,
): Promise<void> {
  const needed = signoffNeededFor(to);
  if (!config.requirePharmacistSignoff || needed === null) return;
  if (!canTransition(order.status as OrderStatus, to)) return;
  if (await findSignoff(db, order.id, needed)) return;
  throw conflict(
    `The medication request cannot move to ${to} without the pharmacist\u2019s ${SIGNOFF_LABELS[needed]}: sign it off first (POST /api/admin/medication-requests/{id}/signoffs with kind ${needed})`,
    { [needed]: `is not signed off; required before ${to}` },
  );
}
