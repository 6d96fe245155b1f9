import { sql, type Kysely } from 'kysely';

/** Medication requests, their prescriptions and items, status history and refill requests. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('medication_requests')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('clinic_id', 'text', (c) => c.notNull().references('clinics.id'))
    .addColumn('patient_id', 'text', (c) => c.notNull().references('patients.id'))
    .addColumn('practitioner_id', 'text', (c) => c.notNull().references('practitioners.id'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('carrier_id', 'text', (c) => c.notNull())
    .addColumn('carrier_name', 'text', (c) => c.notNull())
    .addColumn('service_id', 'text', (c) => c.notNull())
    .addColumn('service_name', 'text', (c) => c.notNull())
    .addColumn('shipping_original_cents', 'integer', (c) => c.notNull())
    .addColumn('shipping_total_cents', 'integer', (c) => c.notNull())
    .addColumn('free_shipment_type', 'text')
    .addColumn('is_refrigerated', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('shipment_group_id', 'text')
    .addColumn('refill_of', 'text', (c) => c.references('medication_requests.id'))
    .addColumn('chain_origin_id', 'text', (c) => c.references('medication_requests.id'))
    .addColumn('tracking_number', 'text')
    .addColumn('shipped_at', 'text')
    .addColumn('delivered_at', 'text')
    .addColumn('cancelled_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // A clinic's orders newest first (and the operator's clinic filter); by status (operator filter,
  // sandbox timer); everything newest first (operator list); a chain's orders.
  await db.schema
    .createIndex('medication_requests_clinic_created_idx')
    .on('medication_requests')
    .columns(['clinic_id', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('medication_requests_status_created_idx')
    .on('medication_requests')
    .columns(['status', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('medication_requests_created_idx')
    .on('medication_requests')
    .columns(['created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('medication_requests_chain_idx')
    .on('medication_requests')
    .column('chain_origin_id')
    .execute();
  await db.schema.createIndex('medication_requests_refill_of_idx').on('medication_requests').column('refill_of').execute();

  await db.schema
    .createTable('prescriptions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('clinic_id', 'text', (c) => c.notNull().references('clinics.id'))
    .addColumn('medication_request_id', 'text', (c) => c.notNull().unique().references('medication_requests.id'))
    .addColumn('original_prescription_id', 'text', (c) => c.references('prescriptions.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('prescription_items')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('prescription_id', 'text', (c) => c.notNull().references('prescriptions.id'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('origin_item_id', 'text', (c) => c.notNull())
    .addColumn('medication_id', 'text')
    .addColumn('medication', 'text', (c) => c.notNull())
    .addColumn('dose', 'text', (c) => c.notNull())
    .addColumn('unit_of_measure', 'text')
    .addColumn('quantity', 'double precision', (c) => c.notNull())
    .addColumn('refills', 'integer', (c) => c.notNull())
    .addColumn('refills_used', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('direction', 'text', (c) => c.notNull())
    .addColumn('days_supply', 'integer')
    .addColumn('flavor', 'text')
    .addColumn('notes', 'text')
    .addColumn('do_not_refill', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('do_not_fill', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('patient_contact_requested', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('reason_for_compounding', 'text')
    .addColumn('reason_for_compounding_additional_context', 'text')
    .addUniqueConstraint('prescription_items_position_key', ['prescription_id', 'position'])
    .execute();

  await db.schema
    .createTable('medication_request_status_history')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('medication_request_id', 'text', (c) => c.notNull().references('medication_requests.id'))
    .addColumn('from_status', 'text')
    .addColumn('to_status', 'text', (c) => c.notNull())
    .addColumn('actor', 'text', (c) => c.notNull())
    .addColumn('at', 'text', (c) => c.notNull())
    // An order enters each state at most once (the lifecycle never goes back); also the index of
    // the history-by-order lookup.
    .addUniqueConstraint('status_history_order_status_key', ['medication_request_id', 'to_status'])
    .execute();

  await db.schema
    .createTable('refill_requests')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('clinic_id', 'text', (c) => c.notNull().references('clinics.id'))
    .addColumn('medication_request_id', 'text', (c) => c.notNull().references('medication_requests.id'))
    .addColumn('new_medication_request_id', 'text', (c) => c.notNull().unique().references('medication_requests.id'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('shipment_group_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('refill_requests_order_idx')
    .on('refill_requests')
    .columns(['medication_request_id', 'created_at'])
    .execute();
  // At most one open refill request per medication request, even when two arrive at once.
  await db.schema
    .createIndex('refill_requests_one_open_key')
    .on('refill_requests')
    .column('medication_request_id')
    .unique()
    .where(sql.ref('status'), '=', sql.lit('open'))
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('The orders migration cannot be reverted');
}
