import { useEffect, useState } from 'preact/hooks';
import { AUDIT_ACTIONS, AUDIT_RESOURCE_TYPES, type AuditResourceType } from '../../../src/audit/audit-vocabulary';
import { api } from '../api';
import type { OperatorData, OperatorQuery } from '../api-types';
import { ClinicName, ClinicSelect, useClinics } from '../components/clinics';
import { Empty, ErrorMessage, Loading, Time } from '../components/feedback';
import { Pager, usePager } from '../components/pager';
import { useResource } from '../components/use-resource';
import { useUrlFilters } from '../components/url-filters';
import { useSession } from '../session';

/** An audit event as the operator API lists it (src/audit/audit.schemas.ts). */
type AuditEvent = OperatorData<'listOperatorAuditEvents'>['items'][number];

const FILTERS = [
  'from',
  'to',
  'actor_type',
  'actor_id',
  'action',
  'resource_type',
  'resource_id',
  'clinic_id',
  'include_own_reads',
] as const;
type Filters = Record<(typeof FILTERS)[number], string>;

/** The kinds of actor (src/audit/audit.schemas.ts AUDIT_ACTOR_TYPES), as the console names them. */
const ACTOR_TYPE_LABELS: Record<AuditEvent['actor']['type'], string> = {
  staff: 'Staff member',
  operator: 'Operator token',
  command_line: 'Command line',
  partner: 'Partner API key',
  oauth_client: 'Partner OAuth client',
  partner_user: 'Partner portal user',
};

/**
 * The address keeps the dates picked (`from=2030-04-01`); the API is asked for instants: from the
 * start of the first day to the end of the last, in the browser's time zone.
 */
function dayStart(day: string, plusDays = 0): string | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!match) return undefined;
  return new Date(Number(match[1]), Number(match[2]) - 1, Number(match[3]) + plusDays).toISOString();
}

/** The API's query for the filters in the address. */
function apiQuery(filters: Filters, cursor: string | undefined): OperatorQuery<'listOperatorAuditEvents'> {
  return {
    ...filters,
    from: dayStart(filters.from),
    to: dayStart(filters.to, 1),
    include_own_reads: filters.include_own_reads === 'true' ? 'true' : undefined,
    cursor,
  };
}

/** Resource types as the console names them (an order is a medication request in the API). */
const RESOURCE_LABELS: Record<AuditResourceType, string> = {
  patient: 'patient',
  practitioner: 'practitioner',
  medication_request: 'order',
  refill_request: 'refill request',
  webhook_endpoint: 'webhook endpoint',
  webhook_delivery: 'webhook delivery',
  staff_member: 'staff member',
  partner_user: 'portal user',
  clinic: 'clinic',
  api_key: 'API key',
  oauth_client: 'OAuth client',
  medication: 'formulary medication',
  carrier: 'carrier',
  shipping_service: 'shipping service',
  licensed_states: 'licensed states',
  allergy_class: 'allergy class',
};

/**
 * Audit: who did what to which resource, when and from where; filterable by date range, actor,
 * action, resource and clinic. The viewer's own reads (what the console showed them) are hidden
 * unless they ask for them.
 */
export function AuditPage() {
  const session = useSession();
  const clinics = useClinics();
  const { filters, key, setFilters } = useUrlFilters(FILTERS);
  // The form edits a draft; the list follows the filters applied (in the address).
  const [draft, setDraft] = useState<Filters>(filters);
  useEffect(() => setDraft(filters), [key]);
  const pager = usePager(key);
  const list = useResource(`${key} ${pager.cursor ?? ''}`, () =>
    api('GET', '/api/admin/audit-events', { query: apiQuery(filters, pager.cursor) }),
  );
  const edit = (name: keyof Filters) => (event: { currentTarget: { value: string } }) =>
    setDraft({ ...draft, [name]: event.currentTarget.value });
  const apply = (next: Filters) => setFilters({ ...next, resource_id: next.resource_id.trim(), actor_id: next.actor_id.trim() });

  return (
    <>
      <h1>Audit</h1>
      <ErrorMessage error={clinics.error} />
      <form
        class="filters"
        aria-label="Filter the audit trail"
        onSubmit={(event) => {
          event.preventDefault();
          apply(draft);
        }}
      >
        <label>
          From
          <input type="date" value={draft.from} onInput={edit('from')} />
        </label>
        <label>
          To
          <input type="date" value={draft.to} min={draft.from || undefined} onInput={edit('to')} />
        </label>
        <label>
          Actor
          <select value={draft.actor_type} onChange={edit('actor_type')}>
            <option value="">Anyone</option>
            {Object.entries(ACTOR_TYPE_LABELS).map(([type, label]) => (
              <option key={type} value={type}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Resource type
          <select value={draft.resource_type} onChange={edit('resource_type')}>
            <option value="">All resources</option>
            {AUDIT_RESOURCE_TYPES.map((type) => (
              <option key={type} value={type}>
                {RESOURCE_LABELS[type]}
              </option>
            ))}
          </select>
        </label>
        <label>
          Resource id
          <input type="search" value={draft.resource_id} maxLength={200} onInput={edit('resource_id')} />
        </label>
        <ClinicSelect
          clinics={clinics.clinics}
          value={draft.clinic_id}
          onChange={(clinicId) => setDraft({ ...draft, clinic_id: clinicId })}
        />
        <label>
          Actor id
          <input type="search" value={draft.actor_id} maxLength={100} aria-describedby="actor-hint" onInput={edit('actor_id')} />
        </label>
        <label>
          Action
          <select value={draft.action} onChange={edit('action')}>
            <option value="">All actions</option>
            {AUDIT_ACTIONS.map((action) => (
              <option key={action} value={action}>
                {action}
              </option>
            ))}
          </select>
        </label>
        <label class="check">
          <input
            type="checkbox"
            checked={draft.include_own_reads === 'true'}
            onChange={(event) => setDraft({ ...draft, include_own_reads: event.currentTarget.checked ? 'true' : '' })}
          />
          Include my own reads
        </label>
        <button type="submit">Apply filters</button>
        <button
          type="button"
          class="secondary"
          onClick={() => apply({ ...draft, actor_type: 'staff', actor_id: session.staff_id })}
        >
          My actions
        </button>
        <button type="button" class="secondary" onClick={() => setFilters({})}>
          Clear filters
        </button>
        <p id="actor-hint" class="hint muted">
          Actor id: a staff member’s id, a partner’s API key id or OAuth client id. Dates are days in your time zone, both
          included. Your own reads (what the console showed you) are hidden unless you include them.
        </p>
      </form>
      <ErrorMessage error={list.error} />
      {list.loading && <Loading what="the audit trail" />}
      {list.data && list.data.items.length === 0 && <Empty>No audit event matches these filters.</Empty>}
      {list.data && list.data.items.length > 0 && (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Actor</th>
                <th scope="col">Clinic</th>
                <th scope="col">Action</th>
                <th scope="col">Resource</th>
                <th scope="col">Request id</th>
                <th scope="col">Client address</th>
              </tr>
            </thead>
            <tbody>
              {list.data.items.map((event) => (
                <tr key={event.audit_event_id}>
                  <td>
                    <Time iso={event.at} />
                  </td>
                  <td>
                    <Actor event={event} />
                  </td>
                  <td>
                    <ClinicName id={event.clinic_id} names={clinics.names} />
                  </td>
                  <td>{event.action}</td>
                  <td>
                    <Resource type={event.resource_type} id={event.resource_id} />
                    {event.resource_clinic_id ? (
                      <div class="muted">
                        of <ClinicName id={event.resource_clinic_id} names={clinics.names} />
                      </div>
                    ) : null}
                  </td>
                  <td>
                    {event.request_id ? <code>{event.request_id}</code> : <span class="muted">—</span>}
                    {event.client_request_id ? (
                      <div class="muted">
                        client’s: <code>{event.client_request_id}</code>
                      </div>
                    ) : null}
                  </td>
                  <td>{event.client_address ?? <span class="muted">—</span>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager pager={pager} nextCursor={list.data?.next_cursor} label="Pages of audit events" />
    </>
  );
}

/** Who acted, by name where the trail has one (staff, the operator token, the command line's operator). */
function Actor({ event }: { event: AuditEvent }) {
  const { actor } = event;
  switch (actor.type) {
    case 'staff':
      return (
        <span title={`Staff id ${actor.staff_id}`}>
          {event.actor_name ?? actor.email} <span class="muted">(staff)</span>
          {event.actor_name !== null ? <div class="muted">{actor.email}</div> : null}
        </span>
      );
    case 'partner':
      return (
        <span>
          <span class="muted">API key</span> <code>{actor.api_key_id}</code>
        </span>
      );
    case 'oauth_client':
      return (
        <span>
          <span class="muted">OAuth client</span> <code>{actor.oauth_client_id}</code>
        </span>
      );
    case 'partner_user':
      return (
        <span title={`Partner user id ${actor.partner_user_id}`}>
          {actor.name ?? actor.email} <span class="muted">(portal)</span>
          {actor.name !== null ? <div class="muted">{actor.email}</div> : null}
        </span>
      );
    case 'operator':
      return <span>Operator token</span>;
    case 'command_line':
      return (
        <span>
          {actor.name} <span class="muted">(command line)</span>
        </span>
      );
  }
}

/** The resource's type and id; an order's id links to its page. */
function Resource({ type, id }: { type: AuditResourceType; id: string }) {
  return (
    <span>
      <span class="muted">{RESOURCE_LABELS[type]}</span>
      <br />
      {type === 'medication_request' ? (
        <a href={`/console/orders/${id}`}>
          <code>{id}</code>
        </a>
      ) : (
        <code>{id}</code>
      )}
    </span>
  );
}
