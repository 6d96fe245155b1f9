/**
 * The dashboard's time windows and buckets, without I/O (docs/console.md#dashboard). Every window
 * ends now (the injected clock) and starts at a boundary in UTC, so that its first bucket is whole:
 * the days of the orders plot, the Monday-based weeks of the shipping-time plot, the hours of the
 * webhook plot. Timestamps are stored as ISO-8601 UTC text, so a day is the first 10 characters of
 * one and an hour the first 13, in both databases.
 */

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;

/** Days of the orders-per-day plot (today included). */
export const ORDER_DAYS = 30;
/** Weeks of the shipping-time plot (this week included). */
export const SHIPPING_WEEKS = 12;
/** Hours of the webhook plot (this hour included). */
export const DELIVERY_HOURS = 48;
/** Disabled endpoints listed by name (the count covers all of them). */
export const DISABLED_ENDPOINTS_LISTED = 50;

/** Midnight UTC of the day of `at`. */
const startOfDay = (at: number): number => at - (((at % DAY_MS) + DAY_MS) % DAY_MS);

/** Monday 00:00 UTC of the ISO week of `at` (1970-01-01 was a Thursday). */
export function startOfWeek(at: number): number {
  const day = startOfDay(at);
  const weekday = (new Date(day).getUTCDay() + 6) % 7; // Monday 0 … Sunday 6
  return day - weekday * DAY_MS;
}

export interface DashboardWindows {
  now: string;
  /** The first day of the orders plot, 00:00 UTC. */
  ordersFrom: string;
  days: string[];
  /** Monday 00:00 UTC of the first week of the shipping plot. */
  shippedFrom: string;
  weeks: string[];
  /** The first whole hour of the webhook plot. */
  attemptsFrom: string;
  hours: string[];
}

/** The windows of a dashboard drawn at `now`. */
export function dashboardWindows(now: Date): DashboardWindows {
  const at = now.getTime();
  const firstDay = startOfDay(at) - (ORDER_DAYS - 1) * DAY_MS;
  const firstWeek = startOfWeek(at) - (SHIPPING_WEEKS - 1) * 7 * DAY_MS;
  const firstHour = at - (((at % HOUR_MS) + HOUR_MS) % HOUR_MS) - (DELIVERY_HOURS - 1) * HOUR_MS;
  const iso = (ms: number) => new Date(ms).toISOString();
  return {
    now: iso(at),
    ordersFrom: iso(firstDay),
    days: Array.from({ length: ORDER_DAYS }, (_, i) => iso(firstDay + i * DAY_MS).slice(0, 10)),
    shippedFrom: iso(firstWeek),
    weeks: Array.from({ length: SHIPPING_WEEKS }, (_, i) => iso(firstWeek + i * 7 * DAY_MS).slice(0, 10)),
    attemptsFrom: iso(firstHour),
    hours: Array.from({ length: DELIVERY_HOURS }, (_, i) => iso(firstHour + i * HOUR_MS)),
  };
}

/** How long the orders waiting now have waited: each bucket from `minHours` up to the next one's. */
export const WAITING_AGES = [
  { age: 'under_1h', label: 'Under 1 hour', minHours: 0 },
  { age: '1h_to_4h', label: '1 to 4 hours', minHours: 1 },
  { age: '4h_to_24h', label: '4 to 24 hours', minHours: 4 },
  { age: '1d_to_3d', label: '1 to 3 days', minHours: 24 },
  { age: '3d_to_7d', label: '3 to 7 days', minHours: 72 },
  { age: 'over_7d', label: 'Over 7 days', minHours: 168 },
] as const;
export type WaitingAge = (typeof WAITING_AGES)[number]['age'];

/**
 * The creation time at and before which an order is at least as old as each bucket's lower bound
 * (after the first): an order created after every bound is in the first bucket.
 */
export const waitingBounds = (now: Date): { age: WaitingAge; createdAtOrBefore: string }[] =>
  WAITING_AGES.slice(1).map(({ age, minHours }) => ({
    age,
    createdAtOrBefore: new Date(now.getTime() - minHours * HOUR_MS).toISOString(),
  }));

/**
 * The p-th percentile (0 ≤ p ≤ 1) of `values` by linear interpolation between the two nearest
 * ranks, as PostgreSQL's `percentile_cont` and a spreadsheet's PERCENTILE.INC compute it; null for
 * no values.
 */
export function percentile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = p * (sorted.length - 1);
  const below = Math.floor(rank);
  const lower = sorted[below] ?? 0;
  const upper = sorted[Math.min(below + 1, sorted.length - 1)] ?? lower;
  return lower + (upper - lower) * (rank - below);
}
