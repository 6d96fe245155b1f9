import { api } from '../api';
import type { OperatorData } from '../api-types';
import { FilterSelect } from '../components/filter-select';
import { Empty, ErrorMessage, Loading, Time } from '../components/feedback';
import { Pager, usePager } from '../components/pager';
import { useUrlFilters } from '../components/url-filters';
import { useResource } from '../components/use-resource';
import { labelOf } from '../components/labels';
import { hours, shortId, useHoldReasons } from './order-shared';

/** A row of GET /api/admin/holds. */
type HeldOrder = OperatorData<'listOperatorHolds'>['items'][number];
type WaitingOn = HeldOrder['hold']['waiting_on'];

const FILTERS = ['reason_code'] as const;

/** The two groups of the view: whose move it is. */
const GROUPS: readonly { waitingOn: WaitingOn; title: string; empty: string }[] = [
  { waitingOn: 'pharmacy', title: 'Waiting on the pharmacy', empty: 'No hold waits on the pharmacy.' },
  { waitingOn: 'partner', title: 'Waiting on the partner', empty: 'No hold waits on a partner.' },
];

/**
 * Holds (issue 29): the orders on hold, in two groups, the pharmacy's move (a partner answered, or
 * the pharmacy itself must act) and the partner's, each oldest hold first with its age in business
 * hours; filtered by reason (the catalog, from the server). Each row links to its order.
 */
export function HoldsPage() {
  const { filters, key, setFilters } = useUrlFilters(FILTERS);
  const reasons = useHoldReasons();
  return (
    <>
      <h1>Holds</h1>
      <p class="hint">Orders on hold, oldest hold first. Age counts business hours since the hold began.</p>
      <div class="filters">
        <FilterSelect
          label="Reason"
          all="All reasons"
          value={filters.reason_code}
          keepUnknown
          options={reasons.data?.map((reason) => ({ value: reason.code, label: labelOf(reason.code) }))}
          onChange={(reason_code) => setFilters({ reason_code })}
        />
      </div>
      <ErrorMessage error={reasons.error} />
      {GROUPS.map((group) => (
        <HoldGroup key={group.waitingOn} {...group} reasonCode={filters.reason_code} filtersKey={key} />
      ))}
    </>
  );
}

function HoldGroup({
  waitingOn,
  title,
  empty,
  reasonCode,
  filtersKey,
}: {
  waitingOn: WaitingOn;
  title: string;
  empty: string;
  reasonCode: string;
  filtersKey: string;
}) {
  const pager = usePager(filtersKey);
  const holds = useResource(`${filtersKey}|${pager.cursor ?? ''}`, () =>
    api('GET', '/api/admin/holds', { query: { waiting_on: waitingOn, reason_code: reasonCode, cursor: pager.cursor } }),
  );
  const headingId = `holds-${waitingOn}`;
  return (
    <section aria-labelledby={headingId}>
      <h2 id={headingId}>{title}</h2>
      <ErrorMessage error={holds.error} />
      {holds.loading ? (
        <Loading what={title.toLowerCase()} />
      ) : holds.data && holds.data.items.length === 0 ? (
        <Empty>{reasonCode === '' ? empty : 'No hold of this reason here.'}</Empty>
      ) : (
        holds.data && <HoldTable caption={`${title}, oldest hold first`} items={holds.data.items} />
      )}
      <Pager pager={pager} nextCursor={holds.data?.next_cursor} label={`Pages of holds ${title.toLowerCase()}`} />
    </section>
  );
}

function HoldTable({ caption, items }: { caption: string; items: HeldOrder[] }) {
  return (
    <div class="table-wrap">
      <table class="queue">
        <caption class="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Patient</th>
            <th scope="col">Clinic</th>
            <th scope="col">Reason</th>
            <th scope="col">On hold since</th>
            <th scope="col">
              Age <span class="muted">(business hours)</span>
            </th>
            <th scope="col">Partner answered</th>
            <th scope="col">Order</th>
          </tr>
        </thead>
        <tbody>
          {items.map((order) => (
            <tr key={order.medication_request_id}>
              <td>
                <a href={`/console/orders/${order.medication_request_id}`}>
                  {order.patient.first_name} {order.patient.last_name}
                </a>
              </td>
              <td>{order.clinic_name}</td>
              <td>
                <strong>{labelOf(order.hold.reason_code)}</strong>
                {order.hold.message && (
                  <>
                    <br />
                    <span class="muted hold-message">{order.hold.message}</span>
                  </>
                )}
              </td>
              <td>
                <Time iso={order.hold.since} />
                <br />
                <span class="muted">from {labelOf(order.held_from)}</span>
              </td>
              <td class="number">{hours(order.age_business_hours)}</td>
              <td>
                <Time iso={order.answered_at} />
              </td>
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
