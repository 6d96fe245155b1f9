import type { ChartConfiguration } from 'chart.js';
import type { ComponentChildren } from 'preact';
import { useId, useMemo } from 'preact/hooks';
import { api } from '../api';
import type { Check, ListsAll, OperatorData } from '../api-types';
import { ChartCanvas } from '../components/chart';
import { ErrorMessage, Loading, Time } from '../components/feedback';
import { labelOf, STATUS_LABEL } from '../components/labels';
import { useResource } from '../components/use-resource';

/** The operator API's dashboard (src/dashboard/dashboard.schemas.ts). */
type Dashboard = OperatorData<'readOperatorDashboard'>;

const STATUSES = ['pending', 'processing', 'shipped', 'delivered', 'cancelled', 'on_hold'] as const;
type Status = (typeof STATUSES)[number];
export type DashboardStatusesListed = Check<
  ListsAll<Exclude<keyof Dashboard['orders_per_day'][number], 'date'>, typeof STATUSES>
>;

/** Colours told apart with the common colour-vision deficiencies (Okabe–Ito); every chart has its table too. */
const COLOURS: Record<Status | 'failed' | 'succeeded' | 'median' | 'p90' | 'active' | 'disabled' | 'held', string> = {
  pending: '#e69f00',
  processing: '#56b4e9',
  shipped: '#0072b2',
  delivered: '#009e73',
  cancelled: '#999999',
  on_hold: '#cc79a7',
  held: '#e69f00',
  succeeded: '#009e73',
  failed: '#d55e00',
  median: '#0072b2',
  p90: '#cc79a7',
  active: '#009e73',
  disabled: '#d55e00',
};

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
const hours = (value: number | null) => (value === null ? '—' : value.toFixed(1));
const stacked = { x: { stacked: true }, y: { stacked: true, beginAtZero: true, ticks: { precision: 0 } } };

/** Dashboard: the operation at a glance, each chart with a heading, a text alternative and a table of its numbers. */
export function DashboardPage() {
  const dashboard = useResource('dashboard', () => api('GET', '/api/admin/dashboard'));
  return (
    <>
      <h1>Dashboard</h1>
      <ErrorMessage error={dashboard.error} />
      {dashboard.data ? (
        <>
          <p class="hint">
            As of <Time iso={dashboard.data.generated_at} />. Days, weeks and hours are UTC.{' '}
            <button type="button" class="secondary" onClick={dashboard.reload}>
              Refresh
            </button>
          </p>
          <Charts data={dashboard.data} />
        </>
      ) : (
        dashboard.loading && <Loading what="the dashboard" />
      )}
    </>
  );
}

function Charts({ data }: { data: Dashboard }) {
  const configs = useMemo(() => chartConfigs(data), [data]);
  const days = data.orders_per_day;
  const ordersTotal = sum(days.map((day) => sum(STATUSES.map((status) => day[status]))));
  const busiest = days.reduce((best, day) => (total(day) > total(best) ? day : best), days[0] ?? { date: '', ...zero() });
  const shippedWeeks = data.time_to_ship.filter((week) => week.shipped > 0);
  const latest = shippedWeeks[shippedWeeks.length - 1];
  const waitingTotal = sum(data.waiting.map((bucket) => bucket.pending + bucket.processing));
  const oldest = [...data.waiting].reverse().find((bucket) => bucket.pending + bucket.processing > 0);
  const attempts = sum(data.webhook_attempts_per_hour.map((hour) => hour.attempts));
  const failed = sum(data.webhook_attempts_per_hour.map((hour) => hour.failed));
  const { holds } = data;

  return (
    <div class="dashboard">
      <ChartSection
        title="Orders per day by status"
        summary={`${ordersTotal} orders created in the last 30 days${busiest.date && total(busiest) > 0 ? `, most on ${busiest.date} (${total(busiest)})` : ''}; each day's bar is split by the orders' status now.`}
        config={configs.orders}
        tableLabel="Orders per day by status, as a table"
      >
        <thead>
          <tr>
            <th scope="col">Day</th>
            {STATUSES.map((status) => (
              <th scope="col" key={status} class="number">
                {statusLabel(status)}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {days.map((day) => (
            <tr key={day.date}>
              <th scope="row">{day.date}</th>
              {STATUSES.map((status) => (
                <td key={status} class="number">
                  {day[status]}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </ChartSection>

      <ChartSection
        title="Time from order to shipped"
        summary={
          latest
            ? `Median and 90th percentile hours from order to shipped per week; the latest week with shipments (${latest.week_start}): median ${hours(latest.median_hours)} h, 90th percentile ${hours(latest.p90_hours)} h, ${latest.shipped} shipped.`
            : 'No order shipped in the last 12 weeks.'
        }
        config={configs.shipping}
        tableLabel="Time from order to shipped, as a table"
      >
        <thead>
          <tr>
            <th scope="col">Week of</th>
            <th scope="col" class="number">
              Shipped
            </th>
            <th scope="col" class="number">
              Median (h)
            </th>
            <th scope="col" class="number">
              90th percentile (h)
            </th>
          </tr>
        </thead>
        <tbody>
          {data.time_to_ship.map((week) => (
            <tr key={week.week_start}>
              <th scope="row">{week.week_start}</th>
              <td class="number">{week.shipped}</td>
              <td class="number">{hours(week.median_hours)}</td>
              <td class="number">{hours(week.p90_hours)}</td>
            </tr>
          ))}
        </tbody>
      </ChartSection>

      <ChartSection
        title="Orders waiting now by age"
        summary={`${waitingTotal} orders pending or processing now${oldest ? `; the oldest have waited ${oldest.label.toLowerCase()}` : ''}.`}
        config={configs.waiting}
        tableLabel="Orders waiting now by age, as a table"
      >
        <thead>
          <tr>
            <th scope="col">Waiting</th>
            <th scope="col" class="number">
              Pending
            </th>
            <th scope="col" class="number">
              Processing
            </th>
          </tr>
        </thead>
        <tbody>
          {data.waiting.map((bucket) => (
            <tr key={bucket.age}>
              <th scope="row">{bucket.label}</th>
              <td class="number">{bucket.pending}</td>
              <td class="number">{bucket.processing}</td>
            </tr>
          ))}
        </tbody>
      </ChartSection>

      <ChartSection
        title="Orders on hold by reason"
        summary={`${holds.total} orders on hold now: ${holds.waiting_on_partner} waiting on the partner, ${holds.waiting_on_pharmacy} on the pharmacy.`}
        config={configs.holds}
        tableLabel="Orders on hold by reason, as a table"
        after={
          <p>
            <a href="/console/holds">Work the holds</a>
          </p>
        }
      >
        <thead>
          <tr>
            <th scope="col">Reason</th>
            <th scope="col" class="number">
              On hold
            </th>
          </tr>
        </thead>
        <tbody>
          {holds.by_reason.map((reason) => (
            <tr key={reason.reason_code}>
              <th scope="row">
                {labelOf(reason.reason_code)}
                <br />
                <span class="muted">{reason.reason}</span>
              </th>
              <td class="number">{reason.count}</td>
            </tr>
          ))}
        </tbody>
      </ChartSection>

      <ChartSection
        title="Webhook deliveries per hour"
        summary={`${attempts} delivery attempts in the last 48 hours, ${failed} of them failed (no 2xx answer).`}
        config={configs.webhooks}
        tableLabel="Webhook deliveries per hour, as a table"
      >
        <thead>
          <tr>
            <th scope="col">Hour (UTC)</th>
            <th scope="col" class="number">
              Attempts
            </th>
            <th scope="col" class="number">
              Failed
            </th>
          </tr>
        </thead>
        <tbody>
          {data.webhook_attempts_per_hour.map((hour) => (
            <tr key={hour.hour}>
              <th scope="row">{hourLabel(hour.hour, true)}</th>
              <td class="number">{hour.attempts}</td>
              <td class="number">{hour.failed}</td>
            </tr>
          ))}
        </tbody>
      </ChartSection>

      <ChartSection
        title="Webhook endpoints disabled"
        summary={`${data.endpoints.disabled} webhook endpoints disabled and ${data.endpoints.active} active.`}
        config={configs.endpoints}
        tableLabel="Webhook endpoints by state, as a table"
        after={<DisabledEndpoints endpoints={data.endpoints.disabled_endpoints} />}
      >
        <thead>
          <tr>
            <th scope="col">State</th>
            <th scope="col" class="number">
              Endpoints
            </th>
          </tr>
        </thead>
        <tbody>
          <tr>
            <th scope="row">Active</th>
            <td class="number">{data.endpoints.active}</td>
          </tr>
          <tr>
            <th scope="row">Disabled</th>
            <td class="number">{data.endpoints.disabled}</td>
          </tr>
        </tbody>
      </ChartSection>
    </div>
  );
}

/** A chart under its heading, its summary in words (also the canvas's text alternative), and its numbers in a table. */
function ChartSection(props: {
  title: string;
  summary: string;
  config: ChartConfiguration;
  tableLabel: string;
  children: ComponentChildren;
  after?: ComponentChildren;
}) {
  const id = useId();
  return (
    <section class="chart-section" aria-labelledby={id}>
      <h2 id={id}>{props.title}</h2>
      <p>{props.summary}</p>
      <ChartCanvas label={`${props.title}: ${props.summary}`} config={props.config} />
      <details>
        <summary>{props.tableLabel}</summary>
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">{props.title}</caption>
            {props.children}
          </table>
        </div>
      </details>
      {props.after}
    </section>
  );
}

function DisabledEndpoints({ endpoints }: { endpoints: Dashboard['endpoints']['disabled_endpoints'] }) {
  if (endpoints.length === 0) return <p>No endpoint is disabled.</p>;
  return (
    <div class="table-wrap">
      <table>
        <caption>Disabled endpoints, most recent first</caption>
        <thead>
          <tr>
            <th scope="col">Clinic</th>
            <th scope="col">URL</th>
            <th scope="col">Disabled</th>
            <th scope="col">Why</th>
          </tr>
        </thead>
        <tbody>
          {endpoints.map((endpoint) => (
            <tr key={endpoint.webhook_id}>
              <td>
                <a href={`/console/clinics/${endpoint.clinic_id}`}>{endpoint.clinic_name}</a>
              </td>
              <td class="url">{endpoint.webhook_url}</td>
              <td>
                <Time iso={endpoint.disabled_at} />
              </td>
              <td>{endpoint.disabled_reason ?? '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function chartConfigs(data: Dashboard) {
  const bar = (label: string, values: number[], colour: string) => ({ label, data: values, backgroundColor: colour });
  const orders: ChartConfiguration = {
    type: 'bar',
    data: {
      labels: data.orders_per_day.map((day) => day.date.slice(5)),
      datasets: STATUSES.map((status) =>
        bar(
          statusLabel(status),
          data.orders_per_day.map((day) => day[status]),
          COLOURS[status],
        ),
      ),
    },
    options: { scales: stacked },
  };
  const shipping: ChartConfiguration = {
    type: 'line',
    data: {
      labels: data.time_to_ship.map((week) => week.week_start.slice(5)),
      datasets: [
        {
          label: 'Median (hours)',
          data: data.time_to_ship.map((week) => week.median_hours),
          borderColor: COLOURS.median,
          backgroundColor: COLOURS.median,
        },
        {
          label: '90th percentile (hours)',
          data: data.time_to_ship.map((week) => week.p90_hours),
          borderColor: COLOURS.p90,
          backgroundColor: COLOURS.p90,
        },
      ],
    },
    options: { scales: { y: { beginAtZero: true } } },
  };
  const waiting: ChartConfiguration = {
    type: 'bar',
    data: {
      labels: data.waiting.map((bucket) => bucket.label),
      datasets: [
        bar(
          'Pending',
          data.waiting.map((bucket) => bucket.pending),
          COLOURS.pending,
        ),
        bar(
          'Processing',
          data.waiting.map((bucket) => bucket.processing),
          COLOURS.processing,
        ),
      ],
    },
    options: { scales: stacked },
  };
  const webhooks: ChartConfiguration = {
    type: 'bar',
    data: {
      labels: data.webhook_attempts_per_hour.map((hour) => hourLabel(hour.hour, false)),
      datasets: [
        bar(
          'Succeeded',
          data.webhook_attempts_per_hour.map((hour) => hour.attempts - hour.failed),
          COLOURS.succeeded,
        ),
        bar(
          'Failed',
          data.webhook_attempts_per_hour.map((hour) => hour.failed),
          COLOURS.failed,
        ),
      ],
    },
    options: { scales: stacked },
  };
  const endpoints: ChartConfiguration = {
    type: 'bar',
    data: {
      labels: ['Active', 'Disabled'],
      datasets: [
        {
          label: 'Endpoints',
          data: [data.endpoints.active, data.endpoints.disabled],
          backgroundColor: [COLOURS.active, COLOURS.disabled],
        },
      ],
    },
    options: {
      indexAxis: 'y',
      plugins: { legend: { display: false } },
      scales: { x: { beginAtZero: true, ticks: { precision: 0 } } },
    },
  };
  const holds: ChartConfiguration = {
    type: 'bar',
    data: {
      // The short labels: the catalog's sentences are cut off on the axis (issue 39, item 11).
      labels: data.holds.by_reason.map((reason) => labelOf(reason.reason_code)),
      datasets: [
        bar(
          'On hold',
          data.holds.by_reason.map((reason) => reason.count),
          COLOURS.held,
        ),
      ],
    },
    options: {
      indexAxis: 'y',
      plugins: { legend: { display: false } },
      scales: { x: { beginAtZero: true, ticks: { precision: 0 } } },
    },
  };
  return { orders, shipping, waiting, webhooks, endpoints, holds };
}

const zero = (): Record<Status, number> => ({ pending: 0, processing: 0, shipped: 0, delivered: 0, cancelled: 0, on_hold: 0 });
const total = (day: Record<Status, number>) => sum(STATUSES.map((status) => day[status]));
const statusLabel = (status: Status) => STATUS_LABEL[status];
/** "2030-04-17T09:00:00.000Z" as "04-17 09:00" (in the table) or "09:00" (on the axis, 48 of them). */
const hourLabel = (iso: string, withDay: boolean) => (withDay ? `${iso.slice(5, 10)} ${iso.slice(11, 16)}` : iso.slice(11, 16));
