import { useState } from 'preact/hooks';
import { useLocation, useRoute } from 'preact-iso';
import { api } from '../../api';
import { ErrorMessage, Loading, Time } from '../../components/feedback';
import { ShipmentList, TROUBLE } from '../../components/shipments';
import { useResource } from '../../components/use-resource';
import type { PortalOrder } from '../types';

/** A UUID as the API's ids are written (any version): the lookup goes nowhere with anything else. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Order lookup (docs/portal.md): an order id (from your system, a webhook event or the request
 * log) opens the order's page. Shown on the Orders page and above an order.
 */
export function OrderLookup({ initial = '' }: { initial?: string }) {
  const { route } = useLocation();
  const [id, setId] = useState(initial);
  const [problem, setProblem] = useState<string | null>(null);
  return (
    <form
      class="inline search"
      role="search"
      aria-label="Order lookup"
      onSubmit={(event) => {
        event.preventDefault();
        const wanted = id.trim();
        if (!UUID.test(wanted)) {
          setProblem('An order id is a UUID, such as 0190f3a2-7c4e-7d7f-9c1e-2b3a4c5d6e7f.');
          return;
        }
        setProblem(null);
        route(`/portal/orders/${wanted.toLowerCase()}`);
      }}
    >
      <label>
        Order id
        <input
          name="order_id"
          required
          autocomplete="off"
          spellcheck={false}
          size={38}
          value={id}
          aria-invalid={problem ? true : undefined}
          onInput={(event) => setId(event.currentTarget.value)}
        />
      </label>
      <button type="submit">Open order</button>
      <ErrorMessage error={problem} />
    </form>
  );
}

/** The Orders page: the lookup, and where else orders are listed. */
export function OrdersPage() {
  return (
    <>
      <h1>Orders</h1>
      <p>
        Open one of your clinic’s orders by its id to see its status, its hold and its journey: each package, its tracking number
        and the carrier’s tracking events. Orders on hold are listed under <a href="/portal/holds">Needs your answer</a>.
      </p>
      <OrderLookup />
    </>
  );
}

const WAITING_ON: Record<string, string> = { partner: 'your clinic’s answer', pharmacy: 'the pharmacy' };

/**
 * One order of the clinic (`/portal/orders/<id>`), as the partner API reads it: its status and
 * dates, its hold (with a link to answer it), its items and shipping, and its journey: each package
 * with its tracking events, newest first. Another clinic's order is not found, as an unknown one.
 */
export function OrderPage() {
  const { params } = useRoute();
  const id = params.orderId ?? '';
  const order = useResource(`order ${id}`, () => api('GET', '/api/portal/orders/{orderId}', { path: { orderId: id } }));
  return (
    <>
      <h1>
        Order <code class="breakable">{id}</code>
      </h1>
      <OrderLookup key={id} />
      <ErrorMessage error={order.error} />
      {order.loading && !order.data && <Loading what="the order" />}
      {order.data && <OrderBody order={order.data} />}
    </>
  );
}

function OrderBody({ order }: { order: PortalOrder }) {
  const { hold, shipping } = order;
  const { shipments } = order;
  const troubled = shipments.some((shipment) => TROUBLE.includes(shipment.status));
  return (
    <>
      <section aria-labelledby="order-status">
        <h2 id="order-status">
          Status <span class={`status status-${order.status}`}>{order.status}</span>
        </h2>
        <dl class="facts">
          <dt>Ordered</dt>
          <dd>
            <Time iso={order.created_at} />
          </dd>
          {order.shipped_at && (
            <>
              <dt>Shipped</dt>
              <dd>
                <Time iso={order.shipped_at} />
              </dd>
            </>
          )}
          {order.delivered_at && (
            <>
              <dt>Delivered</dt>
              <dd>
                <Time iso={order.delivered_at} />
              </dd>
            </>
          )}
          {order.cancelled_at && (
            <>
              <dt>Cancelled</dt>
              <dd>
                <Time iso={order.cancelled_at} />
              </dd>
            </>
          )}
          <dt>Items</dt>
          <dd>
            <ul class="plain">
              {order.medication_requests.map((item) => (
                <li key={item.id}>
                  {item.medication} {item.dose} × {item.quantity}
                  {item.unit_of_measure ? ` ${item.unit_of_measure}` : ''}
                </li>
              ))}
            </ul>
          </dd>
          <dt>Shipping</dt>
          <dd>
            {shipping.carrier_name}, {shipping.service_name}
          </dd>
        </dl>
      </section>
      {hold && (
        <section aria-labelledby="order-hold" class="hold-panel">
          <h2 id="order-hold">On hold: {hold.reason}</h2>
          <dl class="facts">
            <dt>The pharmacy’s message</dt>
            <dd class="message">{hold.message}</dd>
            <dt>Waiting on</dt>
            <dd>
              <strong>{WAITING_ON[hold.waiting_on] ?? hold.waiting_on}</strong>
            </dd>
            <dt>Since</dt>
            <dd>
              <Time iso={hold.since} />
            </dd>
          </dl>
          {hold.waiting_on === 'partner' && (
            <p>
              <a href="/portal/holds">Answer it under Needs your answer</a>
            </p>
          )}
        </section>
      )}
      <section aria-labelledby="order-journey">
        <h2 id="order-journey">Journey</h2>
        {troubled && hold?.reason_code === 'delivery_exception' && (
          <p class="delivery-exception" role="note">
            <strong>The carrier reported a problem delivering a package</strong>: the order is on hold until your clinic answers.
          </p>
        )}
        {shipments.length === 0 ? (
          <p class="muted">Not shipped yet: each package and its tracking events show here once the pharmacy ships the order.</p>
        ) : (
          <ShipmentList
            shipments={shipments}
            carrierName={(carrierId) => (carrierId === shipping.carrier_id ? shipping.carrier_name : carrierId)}
            serviceName={(carrierId, serviceId) =>
              carrierId === shipping.carrier_id && serviceId === shipping.service_id ? shipping.service_name : serviceId
            }
          />
        )}
      </section>
      <section aria-labelledby="order-history">
        <h2 id="order-history">Status history</h2>
        <ol class="hold-history">
          {order.status_history.map((step) => (
            <li key={`${step.to}-${step.at}`}>
              <Time iso={step.at} /> {step.from ? `${step.from} → ${step.to}` : `created ${step.to}`}{' '}
              <span class="muted">({step.actor})</span>
            </li>
          ))}
        </ol>
      </section>
    </>
  );
}
