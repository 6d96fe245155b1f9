import { EVENT_TYPES, TEST_EVENT_TYPE } from '../../../../src/events/event-types';
import { api } from '../../api';
import { AttemptResult } from '../../components/attempts';
import {
  DeliveryPanel,
  DeliveryRows,
  deliveryDetailKey,
  SendAgainButton,
  useOpenRows,
  useSendAgain,
} from '../../components/delivery-rows';
import { FilterSelect } from '../../components/filter-select';
import { Empty, ErrorMessage, Loading, Time } from '../../components/feedback';
import { Pager, usePager } from '../../components/pager';
import { useUrlFilters } from '../../components/url-filters';
import { useResource } from '../../components/use-resource';
import { dayEnd, dayStart } from '../dates';
import { ReadOnlyNote } from '../read-only';
import { useCanChange } from '../session';
import { DELIVERY_STATUSES, type Delivery } from '../types';

const FILTERS = ['status', 'event_type', 'webhook_id', 'since', 'until'] as const;
const COLUMNS = 7;

/**
 * The clinic's webhook deliveries, newest first, filtered by status, event type, endpoint and day
 * (kept in the address); each one's attempts behind a button, and Resend for developers.
 */
export function DeliveriesPage() {
  const canChange = useCanChange();
  const { filters, key, setFilters } = useUrlFilters(FILTERS);
  const pager = usePager(key);
  const endpoints = useResource('portal webhooks', () => api('GET', '/api/portal/webhooks'));
  const list = useResource(`${key} ${pager.cursor ?? ''}`, () =>
    api('GET', '/api/portal/deliveries', {
      query: {
        status: filters.status,
        event_type: filters.event_type,
        webhook_id: filters.webhook_id,
        since: dayStart(filters.since),
        until: dayEnd(filters.until),
        cursor: pager.cursor,
      },
    }),
  );
  const rows = useOpenRows();
  const resend = useSendAgain(list, (delivery: Delivery) =>
    api('POST', '/api/portal/deliveries/{deliveryId}/resend', { path: { deliveryId: delivery.delivery_id } }),
  );

  const set = (name: (typeof FILTERS)[number]) => (event: { currentTarget: HTMLInputElement | HTMLSelectElement }) =>
    setFilters({ ...filters, [name]: event.currentTarget.value });

  return (
    <>
      <h1>Deliveries</h1>
      <ReadOnlyNote />
      <div class="filters">
        <FilterSelect
          label="Status"
          all="All statuses"
          value={filters.status}
          options={DELIVERY_STATUSES}
          onChange={(status) => setFilters({ ...filters, status })}
        />
        <FilterSelect
          label="Event type"
          all="All event types"
          value={filters.event_type}
          options={[...EVENT_TYPES, TEST_EVENT_TYPE]}
          onChange={(event_type) => setFilters({ ...filters, event_type })}
        />
        <FilterSelect
          label="Endpoint"
          all="All endpoints"
          value={filters.webhook_id}
          options={endpoints.data?.webhooks.map((endpoint) => ({ value: endpoint.webhook_id, label: endpoint.url }))}
          keepUnknown
          onChange={(webhook_id) => setFilters({ ...filters, webhook_id })}
        />
        <label>
          From
          <input type="date" value={filters.since} onChange={set('since')} />
        </label>
        <label>
          To
          <input type="date" value={filters.until} onChange={set('until')} />
        </label>
        <button type="button" class="secondary" onClick={list.reload} disabled={list.loading}>
          Refresh
        </button>
      </div>
      <ErrorMessage error={list.error} />
      {list.loading && <Loading what="deliveries" />}
      {list.data?.items.length === 0 && <Empty>No delivery matches these filters.</Empty>}
      {list.data && list.data.items.length > 0 && (
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">Deliveries, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Created</th>
                <th scope="col">Event type</th>
                <th scope="col">Endpoint</th>
                <th scope="col">Status</th>
                <th scope="col">Last attempt</th>
                <th scope="col">Next attempt</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {list.data.items.map((delivery) => (
                <DeliveryRows
                  key={delivery.delivery_id}
                  delivery={delivery}
                  columns={COLUMNS}
                  open={rows.isOpen(delivery.delivery_id)}
                  onToggle={() => rows.toggle(delivery.delivery_id)}
                  outcome={resend.outcome}
                  action={
                    canChange &&
                    delivery.status !== 'pending' && <SendAgainButton label="Resend" delivery={delivery} sender={resend} />
                  }
                  details={<Attempts delivery={delivery} />}
                >
                  <td>
                    <Time iso={delivery.created_at} />
                  </td>
                  <td>
                    <code class="nowrap">{delivery.event_type}</code>
                  </td>
                  <td class="breakable">{delivery.url}</td>
                  <td>
                    <span class={`status status-${delivery.status}`}>{delivery.status}</span>
                  </td>
                  <td>
                    <AttemptResult status={delivery.last_response_status} error={delivery.last_error} />
                  </td>
                  <td>
                    <Time iso={delivery.next_attempt_at} />
                  </td>
                </DeliveryRows>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager pager={pager} nextCursor={list.data?.next_cursor} label="Pages of deliveries" />
    </>
  );
}

/** A delivery's ids and attempts, loaded when shown (again when its row says something happened). */
function Attempts({ delivery }: { delivery: Delivery }) {
  const detail = useResource(deliveryDetailKey(delivery), () =>
    api('GET', '/api/portal/deliveries/{deliveryId}', { path: { deliveryId: delivery.delivery_id } }),
  );
  return <DeliveryPanel delivery={delivery} detail={detail} />;
}
