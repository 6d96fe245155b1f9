import type { Migration } from 'kysely';
import * as m001 from './001_foundation.js';

/**
 * Every migration, in order. Listed here (not read from a folder) so that the built server and
 * the tests run the same set. Migrations are frozen once landed: change the schema with a new one.
 */
export const migrations: Record<string, Migration> = {
  '001_foundation': m001,
};
