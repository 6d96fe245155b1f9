import { Fragment } from 'preact';
import { useState } from 'preact/hooks';
import { EVENT_TYPES, TEST_EVENT_TYPE } from '../../../../src/events/event-types';
import { api } from '../../api';
import { ClinicName, ClinicSelect, type ClinicDirectory } from '../../components/clinics';
import { handler } from '../../components/events';
import { FilterSelect } from '../../components/filter-select';
import { Empty, ErrorMessage, Loading, Notice, Time } from '../../components/feedback';
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
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(new Set());
  const [retrying, setRetrying] = useState<string | null>(null);
  // What the last Retry did, shown below its row.
  const [outcome, setOutcome] = useState<{ deliveryId: string; notice?: string; error?: unknown } | null>(null);

  const toggle = (deliveryId: string) => {
    const next = new Set(expanded);
    if (!next.delete(deliveryId)) next.add(deliveryId);
    setExpanded(next);
  };

  const retry = async (delivery: Delivery) => {
    setRetrying(delivery.delivery_id);
    setOutcome(null);
    try {
      const queued = await api('POST', '/api/admin/webhook-deliveries/{id}/retry', { path: { id: delivery.delivery_id } });
      if (list.data) {
        const items = list.data.items.map((item) => (item.delivery_id === queued.delivery_id ? queued : item));
        list.setData({ ...list.data, items });
      }
      setOutcome({
        deliveryId: delivery.delivery_id,
        notice: 'Queued for an attempt now: Refresh in a moment to see how it went.',
      });
    } catch (failure) {
      setOutcome({ deliveryId: delivery.delivery_id, error: failure });
    } finally {
      setRetrying(null);
    }
  };

  const refresh = () => {
    setOutcome(null);
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
              {list.data.items.map((delivery) => {
                const open = expanded.has(delivery.delivery_id);
                const panelId = `delivery-${delivery.delivery_id}`;
                return (
                  <Fragment key={delivery.delivery_id}>
                    <tr>
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
                      <td>
                        <div class="row-actions">
                          <button
                            type="button"
                            class="secondary disclosure-button"
                            aria-expanded={open}
                            aria-controls={panelId}
                            onClick={() => toggle(delivery.delivery_id)}
                          >
                            Attempts ({delivery.attempt_count})
                          </button>
                          {delivery.status === 'failed' && (
                            <button
                              type="button"
                              disabled={retrying === delivery.delivery_id}
                              onClick={handler(() => retry(delivery))}
                            >
                              Retry
                            </button>
                          )}
                        </div>
                      </td>
                    </tr>
                    {outcome?.deliveryId === delivery.delivery_id && (
                      <tr class="outcome-row">
                        <td colSpan={COLUMNS}>
                          {outcome.notice && <Notice>{outcome.notice}</Notice>}
                          <ErrorMessage error={outcome.error} />
                        </td>
                      </tr>
                    )}
                    {open && (
                      <tr id={panelId} class="details-row">
                        <td colSpan={COLUMNS}>
                          <DeliveryDetails delivery={delivery} />
                        </td>
                      </tr>
                    )}
                  </Fragment>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      <Pager pager={pager} nextCursor={list.data?.next_cursor} label="Pages of deliveries" />
    </section>
  );
}
