import { sql } from 'kysely';
import type { DbOrTrx } from '../db/database.js';
import type { WaitingAge } from './dashboard-windows.js';

/*
 * The dashboard's reads (docs/console.md#dashboard). Each is bounded: by a time window found through
 * an index range (orders created, orders shipped, webhook attempts), by the waiting statuses (the
 * status index), or by the endpoints table, which holds a few rows per clinic. The builders are
 * exported so that a test can ask each database for the plan of exactly what the route runs.
 */

/** Orders created at or after `from`, counted per UTC day and current status. */
export const ordersPerDayQuery = (db: DbOrTrx, from: string) =>
  db
    .selectFrom('medication_requests')
    .select([sql<string>`substr(created_at, 1, 10)`.as('day'), 'status', (eb) => eb.fn.countAll<number | string>().as('count')])
    .where('created_at', '>=', from)
    .groupBy([sql`substr(created_at, 1, 10)`, 'status']);

export async function countOrdersPerDay(db: DbOrTrx, from: string) {
  const rows = await ordersPerDayQuery(db, from).execute();
  return rows.map((row) => ({ day: row.day, status: row.status, count: Number(row.count) }));
}

/** When each order shipped at or after `from` was created and shipped. */
export const shippedSinceQuery = (db: DbOrTrx, from: string) =>
  db
    .selectFrom('medication_requests')
    .select(['created_at', 'shipped_at'])
    .where('shipped_at', '>=', from)
    .$narrowType<{ shipped_at: string }>();

export const findShippedSince = (db: DbOrTrx, from: string) => shippedSinceQuery(db, from).execute();

/**
 * Orders waiting now (pending or processing), counted per status and age bucket: `bounds` are the
 * buckets after the first, youngest first, each with the creation time at or before which an order
 * belongs to it (or an older one).
 */
export const waitingQuery = (
  db: DbOrTrx,
  bounds: readonly { age: WaitingAge; createdAtOrBefore: string }[],
  firstAge: WaitingAge,
) => {
  const oldestFirst = [...bounds].reverse();
  const bucket = sql<WaitingAge>`case ${sql.join(
    oldestFirst.map((b) => sql`when created_at <= ${b.createdAtOrBefore} then ${b.age}`),
    sql` `,
  )} else ${firstAge} end`;
  return (
    db
      .selectFrom('medication_requests')
      .select(['status', bucket.as('age'), (eb) => eb.fn.countAll<number | string>().as('count')])
      .where('status', 'in', ['pending', 'processing'])
      // By position: PostgreSQL would not see the bucket, whose bounds are parameters, as one expression twice.
      .groupBy([sql`1`, sql`2`])
  );
};

export async function countWaiting(
  db: DbOrTrx,
  bounds: readonly { age: WaitingAge; createdAtOrBefore: string }[],
  firstAge: WaitingAge,
) {
  const rows = await waitingQuery(db, bounds, firstAge).execute();
  return rows.map((row) => ({ status: row.status, age: row.age, count: Number(row.count) }));
}

/** Webhook delivery attempts made at or after `from`, per UTC hour, and how many of them failed (no 2xx). */
export const attemptsPerHourQuery = (db: DbOrTrx, from: string) =>
  db
    .selectFrom('webhook_delivery_attempts')
    .select([
      sql<string>`substr(attempted_at, 1, 13)`.as('hour'),
      (eb) => eb.fn.countAll<number | string>().as('attempts'),
      sql<number | string>`sum(case when response_status between 200 and 299 then 0 else 1 end)`.as('failed'),
    ])
    .where('attempted_at', '>=', from)
    .groupBy(sql`substr(attempted_at, 1, 13)`);

export async function countAttemptsPerHour(db: DbOrTrx, from: string) {
  const rows = await attemptsPerHourQuery(db, from).execute();
  return rows.map((row) => ({ hour: row.hour, attempts: Number(row.attempts), failed: Number(row.failed) }));
}

/** Endpoints not deleted, counted per status (active | disabled). */
export async function countEndpointsByStatus(db: DbOrTrx) {
  const rows = await db
    .selectFrom('webhook_endpoints')
    .select(['status', (eb) => eb.fn.countAll<number | string>().as('count')])
    .where('deleted_at', 'is', null)
    .groupBy('status')
    .execute();
  return rows.map((row) => ({ status: row.status, count: Number(row.count) }));
}

/** The endpoints disabled now, most recently disabled first, with their clinic's name. */
export const listDisabledEndpoints = (db: DbOrTrx, limit: number) =>
  db
    .selectFrom('webhook_endpoints as e')
    .innerJoin('clinics as c', 'c.id', 'e.clinic_id')
    .select(['e.id', 'e.clinic_id', 'c.name as clinic_name', 'e.url', 'e.disabled_at', 'e.disabled_reason'])
    .where('e.status', '=', 'disabled')
    .where('e.deleted_at', 'is', null)
    .orderBy('e.disabled_at', 'desc')
    .orderBy('e.id', 'desc')
    .limit(limit)
    .execute();

/** The orders on hold now, counted per reason and whom they wait on (the status index, then the held rows). */
export const holdCountsQuery = (db: DbOrTrx) =>
  db
    .selectFrom('medication_requests')
    .select(['hold_reason_code', 'hold_waiting_on', (eb) => eb.fn.countAll<number | string>().as('count')])
    .where('status', '=', 'on_hold')
    .groupBy(['hold_reason_code', 'hold_waiting_on']);

export async function countHolds(db: DbOrTrx) {
  const rows = await holdCountsQuery(db).execute();
  return rows.map((row) => ({ reasonCode: row.hold_reason_code, waitingOn: row.hold_waiting_on, count: Number(row.count) }));
}
