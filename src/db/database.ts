import type { Kysely, Transaction } from 'kysely';
import type { AuditTables } from '../audit/audit.tables.js';
import type { ClinicTables } from '../clinics/clinic.tables.js';
import type { DeprecationTables } from '../deprecations/deprecation.tables.js';
import type { OutboxTables } from '../events/outbox.tables.js';
import type { IdempotencyTables } from '../idempotency/idempotency.tables.js';
import type { MedicationTables } from '../medications/medication.tables.js';
import type { OAuthTables } from '../oauth/oauth.tables.js';
import type { OrderTables } from '../orders/order.tables.js';
import type { CompoundingTables } from '../compounding/compounding.tables.js';
import type { ShipmentTables } from '../shipments/shipment.tables.js';
import type { RefillTables } from '../refills/refill.tables.js';
import type { RequestLogTables } from '../request-log/request-log.tables.js';
import type { PartnerUserTables } from '../portal/partner-user.tables.js';
import type { PatientTables } from '../patients/patient.tables.js';
import type { PractitionerTables } from '../practitioners/practitioner.tables.js';
import type { LicensingTables, ShippingTables } from '../shipping/shipping.tables.js';
import type { StaffTables } from '../staff/staff.tables.js';
import type { HoldTables } from '../holds/hold.tables.js';
import type { WebhookTables } from '../delivery/webhook.tables.js';

/**
 * Every table of the service, assembled from the feature folders that own them (`*.tables.ts`).
 * Column conventions, so that both drivers bind every value: ids are text (UUIDs, or opaque
 * carrier/service ids), timestamps are ISO-8601 UTC text (sortable as strings), booleans are
 * integers 0/1 (see columns.ts), money is integer cents, structured values are JSON text.
 */
export interface Database
  extends
    ClinicTables,
    PractitionerTables,
    PatientTables,
    MedicationTables,
    ShippingTables,
    LicensingTables,
    OutboxTables,
    OrderTables,
    HoldTables,
    CompoundingTables,
    ShipmentTables,
    RefillTables,
    WebhookTables,
    AuditTables,
    StaffTables,
    IdempotencyTables,
    DeprecationTables,
    OAuthTables,
    RequestLogTables,
    PartnerUserTables {}

export type Db = Kysely<Database>;
export type Trx = Transaction<Database>;
/** A handle that may or may not be inside a transaction (read helpers take this). */
export type DbOrTrx = Kysely<Database> | Transaction<Database>;

export type DialectName = 'sqlite' | 'postgres';
