import type { Kysely } from 'kysely';

/** Clinics, keys, practitioners, patients, formulary, carriers and prices, and the event outbox. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('clinics')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('free_shipping', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('clinic_id', 'text', (c) => c.notNull().references('clinics.id'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('key_prefix', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema.createIndex('api_keys_clinic_idx').on('api_keys').column('clinic_id').execute();

  await db.schema
    .createTable('practitioners')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('clinic_id', 'text', (c) => c.notNull().references('clinics.id'))
    .addColumn('first_name', 'text', (c) => c.notNull())
    .addColumn('last_name', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('npi', 'text', (c) => c.notNull())
    .addColumn('is_veterinarian', 'integer', (c) => c.notNull())
    .addColumn('phone', 'text')
    .addColumn('address_line_1', 'text', (c) => c.notNull())
    .addColumn('address_line_2', 'text')
    .addColumn('city', 'text', (c) => c.notNull())
    .addColumn('state_code', 'text', (c) => c.notNull())
    .addColumn('zip_code', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('practitioners_clinic_idx').on('practitioners').columns(['clinic_id', 'id']).execute();

  await db.schema
    .createTable('patients')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('clinic_id', 'text', (c) => c.notNull().references('clinics.id'))
    .addColumn('practitioner_id', 'text', (c) => c.references('practitioners.id'))
    .addColumn('first_name', 'text', (c) => c.notNull())
    .addColumn('middle_name', 'text')
    .addColumn('last_name', 'text', (c) => c.notNull())
    .addColumn('gender', 'text', (c) => c.notNull())
    .addColumn('dob', 'text', (c) => c.notNull())
    .addColumn('species', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('contacts', 'text', (c) => c.notNull())
    .addColumn('address_line_1', 'text')
    .addColumn('address_line_2', 'text')
    .addColumn('city', 'text')
    .addColumn('state', 'text')
    .addColumn('postal_code', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('patients_clinic_idx').on('patients').columns(['clinic_id', 'id']).execute();

  await db.schema
    .createTable('medications')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('clinic_id', 'text', (c) => c.notNull().references('clinics.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_key', 'text', (c) => c.notNull())
    .addColumn('strength', 'text')
    .addColumn('dosage_form', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('medications_clinic_name_key', ['clinic_id', 'name_key'])
    .execute();

  await db.schema
    .createTable('carriers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('shipping_services')
    .addColumn('carrier_id', 'text', (c) => c.notNull().references('carriers.id'))
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('price_cents', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('shipping_services_pk', ['carrier_id', 'id'])
    .execute();

  await db.schema
    .createTable('shipping_service_state_prices')
    .addColumn('carrier_id', 'text', (c) => c.notNull())
    .addColumn('service_id', 'text', (c) => c.notNull())
    .addColumn('state_code', 'text', (c) => c.notNull())
    .addColumn('price_cents', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('shipping_service_state_prices_pk', ['carrier_id', 'service_id', 'state_code'])
    .addForeignKeyConstraint(
      'shipping_service_state_prices_service_fk',
      ['carrier_id', 'service_id'],
      'shipping_services',
      ['carrier_id', 'id'],
      (fk) => fk.onDelete('cascade'),
    )
    .execute();

  await db.schema
    .createTable('outbox_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('clinic_id', 'text', (c) => c.notNull().references('clinics.id'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('dispatched_at', 'text')
    .execute();
  await db.schema
    .createIndex('outbox_events_undispatched_idx')
    .on('outbox_events')
    .columns(['dispatched_at', 'created_at'])
    .execute();
  await db.schema.createIndex('outbox_events_clinic_idx').on('outbox_events').columns(['clinic_id', 'created_at']).execute();

  await seedDefaultCarriers(db);
}

export async function down(): Promise<void> {
  throw new Error('The foundation migration cannot be reverted');
}

/**
 * The carriers every fresh database starts with, in either environment. Prices are list prices in
 * cents; a few services cost more to ship to Alaska, Hawaii and the territories. Operators change
 * them through the admin API; this migration runs once per database, so their changes stay.
 */
const DEFAULT_CARRIERS = [
  {
    id: 'fedex',
    name: 'FedEx',
    services: [
      { id: 'fedex_ground', name: 'FedEx Ground®', price: 3244, states: { AK: 5899, HI: 5899 } },
      { id: 'fedex_2day', name: 'FedEx 2Day®', price: 4595, states: { AK: 7450, HI: 7450 } },
      { id: 'fedex_priority_overnight', name: 'FedEx Priority Overnight®', price: 8950, states: {} },
    ],
  },
  {
    id: 'ups',
    name: 'UPS',
    services: [
      { id: 'ups_ground', name: 'UPS® Ground', price: 2995, states: { AK: 5499, HI: 5499 } },
      { id: 'ups_next_day_air', name: 'UPS Next Day Air®', price: 8495, states: {} },
    ],
  },
  {
    id: 'usps',
    name: 'USPS',
    services: [
      { id: 'usps_priority', name: 'USPS Priority Mail®', price: 1250, states: {} },
      { id: 'usps_priority_express', name: 'USPS Priority Mail Express®', price: 3975, states: {} },
    ],
  },
] as const;

async function seedDefaultCarriers(db: Kysely<any>): Promise<void> {
  const now = new Date().toISOString();
  for (const carrier of DEFAULT_CARRIERS) {
    await db.insertInto('carriers').values({ id: carrier.id, name: carrier.name, created_at: now }).execute();
    for (const service of carrier.services) {
      await db
        .insertInto('shipping_services')
        .values({ carrier_id: carrier.id, id: service.id, name: service.name, price_cents: service.price, created_at: now })
        .execute();
      for (const [state, cents] of Object.entries(service.states)) {
        await db
          .insertInto('shipping_service_state_prices')
          .values({ carrier_id: carrier.id, service_id: service.id, state_code: state, price_cents: cents })
          .execute();
      }
    }
  }
}
