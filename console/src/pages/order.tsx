import { useRoute } from 'preact-iso';
import { api } from '../api';
import { ErrorMessage, Loading, Time } from '../components/feedback';
import { useResource } from '../components/use-resource';
import { StatusPanel } from './order-actions';
import { dollars, StatusBadge, withNewState, type OrderDetail, type OrderView } from './order-shared';

/**
 * One order, as the pharmacy fills and ships it: items, patient and address (reading them is
 * audited by the API), shipping, tracking, history, refill chain, and the status changes the
 * lifecycle allows from where it is.
 */
export function OrderPage() {
  const { params } = useRoute();
  const id = params.id ?? '';
  const order = useResource(id, () => api<OrderDetail>('GET', `/api/admin/medication-requests/${encodeURIComponent(id)}`));

  return (
    <>
      <p>
        <a href="/console/orders">← Orders</a>
      </p>
      <h1>
        Order <code>{id}</code>
      </h1>
      <ErrorMessage error={order.error} />
      {order.loading ? (
        <Loading what="the order" />
      ) : (
        order.data && (
          <OrderBody
            order={order.data}
            onChanged={(answer) => {
              if (order.data) order.setData(withNewState(order.data, answer));
            }}
          />
        )
      )}
    </>
  );
}

function OrderBody({ order, onChanged }: { order: OrderDetail; onChanged: (answer: OrderView) => void }) {
  const { patient, shipping } = order;
  const address = patient.shipping_address;
  return (
    <>
      <StatusPanel order={order} onChanged={onChanged} />

      <div class="columns">
        <section aria-labelledby="ship-to">
          <h2 id="ship-to">Ship to</h2>
          <p class="patient-name">{[patient.first_name, patient.middle_name, patient.last_name].filter(Boolean).join(' ')}</p>
          {address ? (
            <address>
              {address.address_line_1}
              <br />
              {address.address_line_2 && (
                <>
                  {address.address_line_2}
                  <br />
                </>
              )}
              {address.city}, {address.state} {address.postal_code}
            </address>
          ) : (
            <p class="muted">No shipping address on file.</p>
          )}
        </section>
        <section aria-labelledby="shipping">
          <h2 id="shipping">Shipping</h2>
          <dl class="facts">
            <dt>Clinic</dt>
            <dd>
              <a href={`/console/clinics/${order.clinic_id}`}>{order.clinic_name}</a>
            </dd>
            <dt>Carrier</dt>
            <dd>{shipping.carrier_name}</dd>
            <dt>Service</dt>
            <dd>{shipping.service_name}</dd>
            <dt>Cost</dt>
            <dd>
              {shipping.is_free_shipment ? `Free (list price ${dollars(shipping.original_cost)})` : dollars(shipping.total_cost)}
            </dd>
            <dt>Refrigerated</dt>
            <dd>{order.is_refrigerated ? 'Yes' : 'No'}</dd>
            <dt>Tracking number</dt>
            <dd>{order.tracking_number ? <code>{order.tracking_number}</code> : <span class="muted">—</span>}</dd>
          </dl>
        </section>
      </div>

      <h2>Items</h2>
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Medication</th>
              <th scope="col">Dose</th>
              <th scope="col">Quantity</th>
              <th scope="col">Directions</th>
              <th scope="col">Refills</th>
              <th scope="col">Notes</th>
            </tr>
          </thead>
          <tbody>
            {order.medication_requests.map((item, index) => (
              <tr key={index}>
                <td>
                  {item.medication}
                  {item.do_not_fill && <span class="flag">Do not fill</span>}
                </td>
                <td>{item.dose}</td>
                <td class="number">
                  {item.quantity}
                  {item.days_supply !== null && <span class="muted"> ({item.days_supply} days)</span>}
                </td>
                <td class="prewrap">{item.direction}</td>
                <td>
                  {item.refills} <span class="muted">({item.refills_remaining} left in the chain)</span>
                </td>
                <td class="prewrap">{item.notes ?? <span class="muted">—</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>

      <h2>Status history</h2>
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">From</th>
              <th scope="col">To</th>
              <th scope="col">When</th>
              <th scope="col">By</th>
            </tr>
          </thead>
          <tbody>
            {order.status_history.map((step) => (
              <tr key={`${step.to}-${step.at}`}>
                <td>{step.from ?? <span class="muted">created</span>}</td>
                <td>{step.to}</td>
                <td>
                  <Time iso={step.at} />
                </td>
                <td>{step.actor}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>

      <RefillChain order={order} />
    </>
  );
}

/** The order's refill chain: its first order and every refill, oldest first. */
function RefillChain({ order }: { order: OrderDetail }) {
  return (
    <section aria-labelledby="refill-chain">
      <h2 id="refill-chain">Refill chain</h2>
      {order.refill_chain.length <= 1 ? (
        <p class="muted">This order has not been refilled, and is not a refill.</p>
      ) : (
        <ol class="chain">
          {order.refill_chain.map((entry) => {
            const self = entry.medication_request_id === order.medication_request_id;
            return (
              <li key={entry.medication_request_id}>
                {self ? (
                  <span aria-current="page">
                    <code>{entry.medication_request_id}</code> (this order)
                  </span>
                ) : (
                  <a href={`/console/orders/${entry.medication_request_id}`}>
                    <code>{entry.medication_request_id}</code>
                  </a>
                )}{' '}
                <StatusBadge status={entry.status} />{' '}
                <span class="muted">{entry.refill_of ? 'refill' : 'first order'}, created</span> <Time iso={entry.created_at} />
              </li>
            );
          })}
        </ol>
      )}
    </section>
  );
}
