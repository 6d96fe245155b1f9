import type { AppContext, ReadContext } from '../context.js';
import { HOLD_REASONS } from '../holds/hold-reasons.js';
import { ORDER_STATUSES, type OrderStatus } from '../orders/order-status.js';
import * as repo from './dashboard.repository.js';
import {
  dashboardWindows,
  DISABLED_ENDPOINTS_LISTED,
  percentile,
  startOfWeek,
  WAITING_AGES,
  waitingBounds,
} from './dashboard-windows.js';
import type { DashboardView } from './dashboard.schemas.js';

const HOUR_MS = 60 * 60 * 1000;

/** Hours rounded to a hundredth (36 seconds): a plot's precision, the same on both databases. */
const hours = (ms: number | null): number | null => (ms === null ? null : Math.round((ms / HOUR_MS) * 100) / 100);

/**
 * GET /api/admin/dashboard: the operation at a glance, at the clock's now (docs/console.md#dashboard).
 * Counts are made by the database over bounded windows; the shipping-time percentiles are computed
 * here from the window's durations, because SQLite has no percentile function and both databases
 * must give the same answer (PostgreSQL's `percentile_cont` interpolates as `percentile` does).
 */
export async function readDashboard(ctx: ReadContext & Pick<AppContext, 'clock'>): Promise<DashboardView> {
  const now = ctx.clock();
  const windows = dashboardWindows(now);
  const [perDay, shipped, waiting, attempts, endpointCounts, disabled, holds] = await Promise.all([
    repo.countOrdersPerDay(ctx.db, windows.ordersFrom),
    repo.findShippedSince(ctx.db, windows.shippedFrom),
    repo.countWaiting(ctx.db, waitingBounds(now), WAITING_AGES[0].age),
    repo.countAttemptsPerHour(ctx.db, windows.attemptsFrom),
    repo.countEndpointsByStatus(ctx.db),
    repo.listDisabledEndpoints(ctx.db, DISABLED_ENDPOINTS_LISTED),
    repo.countHolds(ctx.db),
  ]);

  const days = new Map(windows.days.map((date) => [date, { date, ...zeroStatuses() }]));
  for (const row of perDay) {
    const day = days.get(row.day);
    if (day && isStatus(row.status)) day[row.status] += row.count;
  }

  const durations = new Map<string, number[]>(windows.weeks.map((week) => [week, []]));
  for (const row of shipped) {
    const week = new Date(startOfWeek(Date.parse(row.shipped_at))).toISOString().slice(0, 10);
    durations.get(week)?.push(Date.parse(row.shipped_at) - Date.parse(row.created_at));
  }

  const hourly = new Map(attempts.map((row) => [row.hour, row]));
  const endpointCount = (status: string) => endpointCounts.find((row) => row.status === status)?.count ?? 0;
  const waitingCount = (age: string, status: string) =>
    waiting.find((row) => row.age === age && row.status === status)?.count ?? 0;

  return {
    generated_at: windows.now,
    orders_per_day: [...days.values()],
    time_to_ship: windows.weeks.map((week) => {
      const values = durations.get(week) ?? [];
      return {
        week_start: week,
        shipped: values.length,
        median_hours: hours(percentile(values, 0.5)),
        p90_hours: hours(percentile(values, 0.9)),
      };
    }),
    waiting: WAITING_AGES.map(({ age, label }) => ({
      age,
      label,
      pending: waitingCount(age, 'pending'),
      processing: waitingCount(age, 'processing'),
    })),
    webhook_attempts_per_hour: windows.hours.map((hour) => {
      const row = hourly.get(hour.slice(0, 13));
      return { hour, attempts: row?.attempts ?? 0, failed: row?.failed ?? 0 };
    }),
    endpoints: {
      active: endpointCount('active'),
      disabled: endpointCount('disabled'),
      disabled_endpoints: disabled.map((row) => ({
        webhook_id: row.id,
        clinic_id: row.clinic_id,
        clinic_name: row.clinic_name,
        webhook_url: row.url,
        disabled_at: row.disabled_at,
        disabled_reason: row.disabled_reason,
      })),
    },
    holds: holdCounts(holds),
  };
}

/** The holds by reason (every reason of the catalog, in its order) and by whom they wait on. */
function holdCounts(rows: Awaited<ReturnType<typeof repo.countHolds>>): DashboardView['holds'] {
  const of = (keep: (row: (typeof rows)[number]) => boolean) => rows.filter(keep).reduce((total, row) => total + row.count, 0);
  return {
    total: of(() => true),
    waiting_on_partner: of((row) => row.waitingOn === 'partner'),
    waiting_on_pharmacy: of((row) => row.waitingOn === 'pharmacy'),
    by_reason: HOLD_REASONS.map(({ code, reason }) => ({
      reason_code: code,
      reason,
      count: of((row) => row.reasonCode === code),
    })),
  };
}

const zeroStatuses = (): Record<OrderStatus, number> =>
  Object.fromEntries(ORDER_STATUSES.map((status) => [status, 0])) as Record<OrderStatus, number>;

const isStatus = (value: string): value is OrderStatus => (ORDER_STATUSES as readonly string[]).includes(value);
