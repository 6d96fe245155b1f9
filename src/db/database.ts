import type { Kysely, Transaction } from 'kysely';
import type { FoundationTables } from './foundation.tables.js';
import type { OrderTables } from '../orders/order.tables.js';
import type { WebhookTables } from '../webhooks/webhook.tables.js';

/** Every table of the service, assembled from the feature folders that own them. */
export interface Database extends FoundationTables, OrderTables, WebhookTables {}

export type Db = Kysely<Database>;
export type Trx = Transaction<Database>;
/** A handle that may or may not be inside a transaction (read helpers take this). */
export type DbOrTrx = Kysely<Database> | Transaction<Database>;

export type DialectName = 'sqlite' | 'postgres';
