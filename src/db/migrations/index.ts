import type { Migration } from 'kysely';
import * as m001 from './001_foundation.js';
import * as m002 from './002_orders.js';
import * as m003 from './003_webhooks.js';
import * as m004 from './004_medication_items.js';
import * as m005 from './005_idempotency_keys.js';
import * as m006 from './006_audit_events.js';
import * as m007 from './007_webhook_secret_encryption.js';
import * as m008 from './008_staff_accounts.js';
import * as m009 from './009_partner_reads.js';
import * as m010 from './010_delivery_engine.js';
import * as m011 from './011_api_key_scopes_and_expiry.js';
import * as m012 from './012_oauth_clients.js';
import * as m013 from './013_deprecation_usage.js';
import * as m014 from './014_audit_client_request_id.js';
import * as m015 from './015_request_log.js';
import * as m016 from './016_dashboard_indexes.js';
import * as m017 from './017_named_actors.js';
import * as m018 from './018_partner_accounts.js';
import * as m019 from './019_webhook_secret_rotation.js';
import * as m020 from './020_request_log_keys.js';
import * as m021 from './021_order_holds.js';
import * as m022 from './022_medication_formulas.js';
import * as m023 from './023_licensed_states.js';
import * as m024 from './024_compounding_record.js';
import * as m025 from './025_patient_orders_index.js';
import * as m026 from './026_order_event_sequence.js';
import * as m027 from './027_shipments.js';
import * as m028 from './028_delivery_options.js';
import * as m029 from './029_event_types_and_log.js';
import * as m030 from './030_formulary_safety.js';
import * as m031 from './031_fill_beyond_use.js';
import * as m033 from './033_signoffs_by_the_person.js';
import * as m034 from './034_holds_stack.js';
import * as m035 from './035_allergy_classes_and_replacements.js';
import * as m036 from './036_quantity_units.js';

/**
 * Every migration, in order. Listed here (not read from a folder) so that the built server and
 * the tests run the same set. Migrations are frozen once landed: change the schema with a new one.
 */
export const migrations: Record<string, Migration> = {
  '001_foundation': m001,
  '002_orders': m002,
  '003_webhooks': m003,
  '004_medication_items': m004,
  '005_idempotency_keys': m005,
  '006_audit_events': m006,
  '007_webhook_secret_encryption': m007,
  '008_staff_accounts': m008,
  '009_partner_reads': m009,
  '010_delivery_engine': m010,
  '011_api_key_scopes_and_expiry': m011,
  '012_oauth_clients': m012,
  '013_deprecation_usage': m013,
  '014_audit_client_request_id': m014,
  '015_request_log': m015,
  '016_dashboard_indexes': m016,
  '017_named_actors': m017,
  '018_partner_accounts': m018,
  '019_webhook_secret_rotation': m019,
  '020_request_log_keys': m020,
  '021_order_holds': m021,
  '022_medication_formulas': m022,
  '023_licensed_states': m023,
  '024_compounding_record': m024,
  '025_patient_orders_index': m025,
  '026_order_event_sequence': m026,
  '027_shipments': m027,
  '028_delivery_options': m028,
  '029_event_types_and_log': m029,
  '030_formulary_safety': m030,
  '031_fill_beyond_use': m031,
  '033_signoffs_by_the_person': m033,
  '034_holds_stack': m034,
  '035_allergy_classes_and_replacements': m035,
  '036_quantity_units': m036,
};
