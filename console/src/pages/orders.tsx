import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, query, type Page } from '../api';
import { ErrorMessage, Empty, Loading, Time } from '../components/feedback';
import { Pager, usePager } from '../components/pager';
import { useResource } from '../components/use-resource';
import { ORDER_STATUSES, StatusBadge, type QueueItem } from './order-shared';

export { OrderPage } from './order';

interface Clinic {
  clinic_id: string;
  name: string;
}

/** The queue's filters live in the address, so that coming back from an order finds them as they were. */
interface Filters {
  status: string;
  clinic_id: string;
  medication_request_id: string;
}

/**
 * The fulfillment queue (the landing page): newest first, filtered by status and clinic, searched by
 * order id, a page at a time.
 */
export function OrdersPage() {
  const location = useLocation();
  const filters: Filters = {
    status: location.query.status ?? '',
    clinic_id: location.query.clinic_id ?? '',
    medication_request_id: location.query.medication_request_id ?? '',
  };
  const setFilters = (changes: Partial<Filters>) => {
    location.route(`/console/orders${query({ ...filters, ...changes })}`, true);
  };

  const filterKey = query({ ...filters });
  const pager = usePager(filterKey);
  const orders = useResource(`${filterKey}|${pager.cursor ?? ''}`, () =>
    api<Page<QueueItem>>('GET', `/api/admin/medication-requests${query({ ...filters, cursor: pager.cursor })}`),
  );
  const clinics = useResource('clinics', () => api<{ clinics: Clinic[] }>('GET', '/api/admin/clinics'));
  const filtered = Object.values(filters).some((value) => value !== '');

  return (
    <>
      <h1>Orders</h1>
      <div class="filters">
        <label>
          Status
          <select value={filters.status} onChange={(event) => setFilters({ status: event.currentTarget.value })}>
            <option value="">All statuses</option>
            {ORDER_STATUSES.map((status) => (
              <option key={status} value={status}>
                {status}
              </option>
            ))}
          </select>
        </label>
        <label>
          Clinic
          <select value={filters.clinic_id} onChange={(event) => setFilters({ clinic_id: event.currentTarget.value })}>
            <option value="">All clinics</option>
            {clinics.data?.clinics.map((clinic) => (
              <option key={clinic.clinic_id} value={clinic.clinic_id}>
                {clinic.name}
              </option>
            ))}
          </select>
        </label>
        <OrderSearch current={filters.medication_request_id} onSearch={(id) => setFilters({ medication_request_id: id })} />
      </div>
      <ErrorMessage error={clinics.error} />
      <ErrorMessage error={orders.error} />
      {orders.loading ? (
        <Loading what="orders" />
      ) : orders.data && orders.data.items.length === 0 ? (
        <Empty>{filtered ? 'No order matches these filters.' : 'No orders yet.'}</Empty>
      ) : (
        orders.data && <QueueTable items={orders.data.items} />
      )}
      <Pager pager={pager} nextCursor={orders.data?.next_cursor} />
    </>
  );
}

/** A search by order id: the whole id, as partners and the order's page give it. */
function OrderSearch({ current, onSearch }: { current: string; onSearch: (id: string) => void }) {
  const [text, setText] = useState(current);
  const submit = (event: Event) => {
    event.preventDefault();
    onSearch(text.trim().toLowerCase());
  };
  return (
    <form class="inline search" role="search" onSubmit={submit}>
      <label>
        Order id
        <input
          type="search"
          name="medication_request_id"
          size={38}
          spellcheck={false}
          autocomplete="off"
          value={text}
          onInput={(event) => setText(event.currentTarget.value)}
        />
      </label>
      <button type="submit">Search</button>
      {current !== '' && (
        <button
          type="button"
          class="secondary"
          onClick={() => {
            setText('');
            onSearch('');
          }}
        >
          Clear search
        </button>
      )}
    </form>
  );
}

function QueueTable({ items }: { items: QueueItem[] }) {
  return (
    <div class="table-wrap">
      <table class="queue">
        <caption class="visually-hidden">Orders, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Order</th>
            <th scope="col">Clinic</th>
            <th scope="col">Patient</th>
            <th scope="col">Status</th>
            <th scope="col">Items</th>
            <th scope="col">Carrier and service</th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {items.map((order) => (
            <tr key={order.medication_request_id}>
              <td class="order-id">
                <a href={`/console/orders/${order.medication_request_id}`}>
                  <code>{order.medication_request_id}</code>
                </a>
              </td>
              <td>{order.clinic_name}</td>
              <td>{order.patient_name}</td>
              <td>
                <StatusBadge status={order.status} />
              </td>
              <td class="number">{order.item_count}</td>
              <td>
                {order.carrier_name}
                <br />
                <span class="muted">{order.service_name}</span>
              </td>
              <td>
                <Time iso={order.created_at} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
