import { Type, type Static } from '@sinclair/typebox';
import { Nullable, Timestamp, Uuid } from '../contracts/schemas.js';
import { WAITING_AGES } from './dashboard-windows.js';

const Count = (description: string) => Type.Integer({ minimum: 0, description });

const OrdersDay = Type.Object(
  {
    date: Type.String({ format: 'date', description: 'The UTC day the orders were created.' }),
    pending: Count('Created that day and pending now.'),
    processing: Count('Created that day and processing now.'),
    shipped: Count('Created that day and shipped now.'),
    delivered: Count('Created that day and delivered now.'),
    cancelled: Count('Created that day and cancelled now.'),
    on_hold: Count('Created that day and on hold now.'),
  },
  { additionalProperties: false },
);

const ShippingWeek = Type.Object(
  {
    week_start: Type.String({ format: 'date', description: 'The Monday (UTC) the week starts.' }),
    shipped: Count('Orders shipped that week.'),
    median_hours: Nullable(Type.Number({ description: 'Median hours from order to shipped; null when none shipped.' })),
    p90_hours: Nullable(
      Type.Number({ description: '90th percentile of the hours from order to shipped; null when none shipped.' }),
    ),
  },
  { additionalProperties: false },
);

const WaitingBucket = Type.Object(
  {
    age: Type.Union(
      WAITING_AGES.map((bucket) => Type.Literal(bucket.age)),
      { description: 'How long the orders have waited since they were created.' },
    ),
    label: Type.String({ description: 'The bucket in words.' }),
    pending: Count('Pending orders of that age.'),
    processing: Count('Processing orders of that age.'),
  },
  { additionalProperties: false },
);

const AttemptsHour = Type.Object(
  {
    hour: Timestamp,
    attempts: Count('Delivery attempts made in the hour.'),
    failed: Count('Of those, attempts without a 2xx answer (error, timeout, refusal or another status).'),
  },
  { additionalProperties: false },
);

const DisabledEndpoint = Type.Object(
  {
    webhook_id: Uuid(),
    clinic_id: Uuid(),
    clinic_name: Type.String(),
    webhook_url: Type.String(),
    disabled_at: Nullable(Timestamp),
    disabled_reason: Nullable(Type.String()),
  },
  { additionalProperties: false },
);

const HoldReasonCount = Type.Object(
  {
    reason_code: Type.String({ description: 'The catalog\u2019s code (GET /api/admin/hold-reasons).' }),
    reason: Type.String({ description: 'The catalog\u2019s text of the reason.' }),
    count: Count('Orders on hold now for this reason.'),
  },
  { additionalProperties: false },
);

export const Dashboard = Type.Object(
  {
    generated_at: Timestamp,
    orders_per_day: Type.Array(OrdersDay, { description: 'The last 30 UTC days, oldest first, today included.' }),
    time_to_ship: Type.Array(ShippingWeek, {
      description: 'The last 12 weeks (Monday to Sunday, UTC), oldest first, this week included; by the week an order shipped.',
    }),
    waiting: Type.Array(WaitingBucket, { description: 'Orders pending or processing now, by age, youngest first.' }),
    webhook_attempts_per_hour: Type.Array(AttemptsHour, {
      description: 'The last 48 UTC hours, oldest first, this hour included.',
    }),
    endpoints: Type.Object(
      {
        active: Count('Webhook endpoints active now.'),
        disabled: Count('Webhook endpoints disabled now.'),
        disabled_endpoints: Type.Array(DisabledEndpoint, { description: 'The 50 most recently disabled, newest first.' }),
      },
      { additionalProperties: false },
    ),
    holds: Type.Object(
      {
        total: Count('Orders on hold now.'),
        waiting_on_partner: Count('Of those, the holds waiting on the partner\u2019s answer.'),
        waiting_on_pharmacy: Count('Of those, the holds waiting on the pharmacy.'),
        by_reason: Type.Array(HoldReasonCount, {
          description:
            'Every reason of the catalog, in the catalog\u2019s order, with the orders on hold for it now (0 included).',
        }),
      },
      { additionalProperties: false, description: 'The orders on hold now (issue 29), by reason and by whom they wait on.' },
    ),
  },
  { additionalProperties: false },
);
export type DashboardView = Static<typeof Dashboard>;
