import { useState } from 'preact/hooks';
import { api } from '../api';
import { ClinicSelect, useClinics } from '../components/clinics';
import { FilterSelect } from '../components/filter-select';
import { ErrorMessage, Empty, Loading, Time } from '../components/feedback';
import { Pager, usePager } from '../components/pager';
import { STATUS_LABEL } from '../components/labels';
import { useUrlFilters } from '../components/url-filters';
import { useResource } from '../components/use-resource';
import { calendarDate, hours, medicationLine, ORDER_STATUSES, shortId, StatusBadge, type QueueItem } from './order-shared';

export { OrderPage } from './order';

/** The queue's filters, kept in the address: coming back from an order finds them as they were. */
const FILTERS = ['q', 'status', 'clinic_id', 'carrier_id', 'created_from', 'created_to', 'sort'] as const;

/**
 * The pharmacist's work queue (the landing page): by default the orders still to work, oldest
 * first, then the others, newest first. Searched by patient, prescriber, any part of an order id or a
 * tracking number; filtered by status, clinic, carrier and day of creation; a page at a time.
 */
export function OrdersPage() {
  const { filters, key, setFilters } = useUrlFilters(FILTERS);
  const set = (changes: Partial<typeof filters>) => setFilters({ ...filters, ...changes });
  const pager = usePager(key);
  const orders = useResource(`${key}|${pager.cursor ?? ''}`, () =>
    api('GET', '/api/admin/medication-requests', { query: { ...filters, cursor: pager.cursor } }),
  );
  const clinics = useClinics();
  const carriers = useResource('carriers', () => api('GET', '/api/admin/carriers'));
  const filtered = FILTERS.some((name) => name !== 'sort' && filters[name] !== '');

  return (
    <>
      <h1>Orders</h1>
      <OrderSearch key={filters.q} current={filters.q} onSearch={(q) => set({ q })} />
      <div class="filters">
        <FilterSelect
          label="Status"
          all="All statuses"
          value={filters.status}
          options={ORDER_STATUSES.map((status) => ({ value: status, label: STATUS_LABEL[status] }))}
          onChange={(status) => set({ status })}
        />
        <ClinicSelect clinics={clinics.clinics} value={filters.clinic_id} onChange={(clinicId) => set({ clinic_id: clinicId })} />
        <FilterSelect
          label="Carrier"
          all="All carriers"
          value={filters.carrier_id}
          options={carriers.data?.carriers.map((carrier) => ({ value: carrier.id, label: carrier.name }))}
          onChange={(carrier_id) => set({ carrier_id })}
        />
        <label>
          Created from
          <input
            type="date"
            value={filters.created_from}
            max={filters.created_to || undefined}
            onChange={(event) => set({ created_from: event.currentTarget.value })}
          />
        </label>
        <label>
          Created to
          <input
            type="date"
            value={filters.created_to}
            min={filters.created_from || undefined}
            onChange={(event) => set({ created_to: event.currentTarget.value })}
          />
        </label>
        <label>
          Order
          <select value={filters.sort} onChange={(event) => set({ sort: event.currentTarget.value })}>
            <option value="">Oldest waiting first</option>
            <option value="newest">Newest first</option>
          </select>
        </label>
      </div>
      <ErrorMessage error={clinics.error} />
      <ErrorMessage error={carriers.error} />
      <ErrorMessage error={orders.error} />
      {orders.loading ? (
        <Loading what="orders" />
      ) : orders.data && orders.data.items.length === 0 ? (
        <Empty>{filtered ? 'No order matches these filters.' : 'No orders yet.'}</Empty>
      ) : (
        orders.data && <QueueTable items={orders.data.items} newestFirst={filters.sort === 'newest'} />
      )}
      <Pager pager={pager} nextCursor={orders.data?.next_cursor} />
    </>
  );
}

/** The search: a patient's or prescriber's name, any part of an order id (its last 8 characters, say), a tracking number. */
function OrderSearch({ current, onSearch }: { current: string; onSearch: (q: string) => void }) {
  const [text, setText] = useState(current);
  const submit = (event: Event) => {
    event.preventDefault();
    onSearch(text.trim());
  };
  return (
    <form class="inline search" role="search" aria-label="Orders" onSubmit={submit}>
      <label>
        Search orders
        <input
          type="search"
          name="q"
          size={32}
          maxLength={100}
          spellcheck={false}
          autocomplete="off"
          aria-describedby="order-search-hint"
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
      <p id="order-search-hint" class="hint">
        Patient or prescriber name, any part of an order id, or a tracking number.
      </p>
    </form>
  );
}

function QueueTable({ items, newestFirst }: { items: QueueItem[]; newestFirst: boolean }) {
  return (
    <div class="table-wrap">
      <table class="queue">
        <caption class="visually-hidden">
          {newestFirst ? 'Orders, newest first' : 'Orders waiting to be worked, oldest first, then the others, newest first'}
        </caption>
        <thead>
          <tr>
            <th scope="col">Patient</th>
            <th scope="col">Medication</th>
            <th scope="col">Prescriber</th>
            <th scope="col">Clinic</th>
            <th scope="col">Status</th>
            <th scope="col">Came in</th>
            <th scope="col">
              Waited <span class="muted">(business hours)</span>
            </th>
            <th scope="col">Order</th>
          </tr>
        </thead>
        <tbody>
          {items.map((order) => (
            <tr key={order.medication_request_id}>
              <td>
                <a href={`/console/orders/${order.medication_request_id}`}>{order.patient_name}</a>
                <br />
                <span class="muted">Born {calendarDate(order.patient_dob)}</span>
              </td>
              <td>
                <ul class="plain">
                  {order.medications.map((item, index) => (
                    <li key={index}>{medicationLine(item)}</li>
                  ))}
                </ul>
              </td>
              <td>
                {order.practitioner_name}
                <br />
                <span class="muted">NPI {order.practitioner_npi}</span>
                {order.practitioner_is_veterinarian && <span class="tag">Veterinarian</span>}
              </td>
              <td>{order.clinic_name}</td>
              <td>
                <StatusBadge status={order.status} />
                <QueueMarks order={order} />
                {order.tracking_number && (
                  <>
                    <br />
                    <code class="muted">{order.tracking_number}</code>
                  </>
                )}
              </td>
              <td>
                <Time iso={order.created_at} />
              </td>
              <td class="number">{hours(order.age_business_hours)}</td>
              <td class="order-ref">
                <code title={order.medication_request_id}>{shortId(order.medication_request_id)}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** What a pharmacist sorts the queue by at a glance: a refill, an order that ships cold, a hold (and whose move it is). */
function QueueMarks({ order }: { order: QueueItem }) {
  return (
    <span class="marks">
      {order.refill_of && <span class="tag mark-refill">Refill</span>}
      {order.is_refrigerated && <span class="tag mark-cold">Refrigerated</span>}
      {order.hold && (
        <span class="tag mark-hold" title={order.hold.reason}>
          Held: {order.hold.reason} ({order.hold.waiting_on === 'partner' ? 'waiting on the clinic' : 'waiting on the pharmacy'})
        </span>
      )}
    </span>
  );
}
