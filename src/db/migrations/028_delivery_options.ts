import type { Kysely } from 'kysely';

/**
 * Delivery options and cold chain (issue 31, item 5; docs/shipping.md#delivery-options and
 * #cold-chain): an order's `signature_required` and `saturday_delivery` (0/1, the partner's choice
 * when ordering, copied by its refills), and a carrier service's `cold_chain_eligible` (0/1, set by
 * the operator). Every existing row takes 0: no option asked, no service eligible until an operator
 * says so.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('medication_requests')
    .addColumn('signature_required', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('medication_requests')
    .addColumn('saturday_delivery', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('shipping_services')
    .addColumn('cold_chain_eligible', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('shipping_services').dropColumn('cold_chain_eligible').execute();
  await db.schema.alterTable('medication_requests').dropColumn('saturday_delivery').execute();
  await db.schema.alterTable('medication_requests').dropColumn('signature_required').execute();
}
