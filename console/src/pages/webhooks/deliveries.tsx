import { EVENT_TYPES, TEST_EVENT_TYPE } from '../../../../src/events/event-types';
import { api } from '../../api';
import { ClinicName, ClinicSelect, type ClinicDirectory } from '../../components/clinics';
import { DeliveryRows, SendAgainButton, useOpenRows, useSendAgain } from '../../components/delivery-rows';
import { FilterSelect } from '../../components/filter-select';
import { Empty, ErrorMessage, Loading, Time } from '../../components/feedback';
import { Pager, usePager } from '../../components/pager';
import { useUrlFilters } from '../../components/url-filters';
import { useResource } from '../../components/use-resource';
import { AttemptResult } from '../../components/attempts';
import { DeliveryDetails } from './delivery-details';
import { shortId } from '../order-shared';
import { DELIVERY_STATUSES, hostOf, type Delivery } from './types';

const FILTERS = ['status', 'clinic_id', 'event_type'] as const;
const COLUMNS = 8;

/**
 * The delivery log, newest first, filtered by status, clinic and event type (kept in the address):
 * each delivery's attempts behind a disclosure button, and Retry on the failed ones, which updates
 * the row in place.
 */
export function Deliveries({ clinics, generation }: { clinics: ClinicDirectory; generation: number }) {
  const { filters, key, setFilters } = useUrlFilters(FILTERS);
  const pager = usePager(key);
  const list = useResource(`${key} ${pager.cursor ?? ''} ${generation}`, () =>
    api('GET', '/api/admin/webhook-deliveries', { query: { ...filters, cursor: pager.cursor } }),
  );
  const rows = useOpenRows();
  const retry = useSendAgain(list, (delivery: Delivery) =>
    api('POST', '/api/admin/webhook-deliveries/{id}/retry', { path: { id: delivery.delivery_id } }),
  );

  const refresh = () => {
    retry.clearOutcome();
    list.reload();
  };

  return (
    <section aria-labelledby="deliveries">
      <h2 id="deliveries">Deliveries</h2>
      <div class="filters">
        <FilterSelect
          label="Status"
          all="All statuses"
          value={filters.status}
          options={DELIVERY_STATUSES}
          onChange={(status) => setFilters({ ...filters, status })}
        />
        <ClinicSelect
          clinics={clinics.clinics}
          value={filters.clinic_id}
          onChange={(clinicId) => setFilters({ ...filters, clinic_id: clinicId })}
        />
        <FilterSelect
          label="Event type"
          all="All event types"
          value={filters.event_type}
          options={[...EVENT_TYPES, TEST_EVENT_TYPE]}
          onChange={(event_type) => setFilters({ ...filters, event_type })}
        />
        <button type="button" class="secondary" onClick={refresh} disabled={list.loading}>
          Refresh
        </button>
      </div>
      <ErrorMessage error={list.error} />
      {list.loading && <Loading what="deliveries" />}
      {list.data && list.data.items.length === 0 && <Empty>No delivery matches these filters.</Empty>}
      {list.data && list.data.items.length > 0 && (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Created</th>
                <th scope="col">Event type</th>
                <th scope="col">Clinic</th>
                <th scope="col">Endpoint</th>
                <th scope="col">Order</th>
                <th scope="col">Status</th>
                <th scope="col">Last attempt</th>
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
                  outcome={retry.outcome}
                  action={delivery.status === 'failed' && <SendAgainButton label="Retry" delivery={delivery} sender={retry} />}
                  details={<DeliveryDetails delivery={delivery} />}
                >
                  <td>
                    <Time iso={delivery.created_at} />
                  </td>
                  <td>
                    <code class="nowrap">{delivery.event_type}</code>
                  </td>
                  <td>
                    <ClinicName id={delivery.clinic_id} names={clinics.names} />
                  </td>
                  <td class="breakable" title={delivery.webhook_url}>
                    {hostOf(delivery.webhook_url)}
                  </td>
                  <td>
                    {delivery.medication_request_id ? (
                      <a href={`/console/orders/${delivery.medication_request_id}`} title={delivery.medication_request_id}>
                        <code class="nowrap">{shortId(delivery.medication_request_id)}</code>
                      </a>
                    ) : (
                      <span class="muted">—</span>
                    )}
                  </td>
                  <td>
                    <span class={`status status-${delivery.status}`}>{delivery.status}</span>
                  </td>
                  <td>
                    <Time iso={delivery.last_attempt_at} />
                    <br />
                    <AttemptResult status={delivery.last_response_status} error={delivery.last_error} />
                  </td>
                </DeliveryRows>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager pager={pager} nextCursor={list.data?.next_cursor} label="Pages of deliveries" />
    </section>
  );
}
