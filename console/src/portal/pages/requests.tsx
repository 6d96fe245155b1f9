import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api';
import { Empty, ErrorMessage, Loading, Time } from '../../components/feedback';
import { Pager, usePager } from '../../components/pager';
import { useUrlFilters } from '../../components/url-filters';
import { FilterSelect } from '../../components/filter-select';
import { useResource } from '../../components/use-resource';
import { dayStart } from '../dates';

const FILTERS = ['status', 'method', 'route', 'since', 'request_id'] as const;
const STATUSES = ['2xx', '4xx', '5xx', '400', '401', '403', '404', '409', '422', '429', '500', '503'] as const;
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/**
 * The clinic's request log (metadata only, no body: docs/request-log.md), newest first, filtered by
 * status, method, route and day (kept in the address). A request id from an error's `request_id`
 * finds that request in one search, whatever the other filters.
 */
export function RequestsPage() {
  const { filters, key, setFilters } = useUrlFilters(FILTERS);
  const pager = usePager(key);
  const list = useResource(`${key} ${pager.cursor ?? ''}`, () =>
    api('GET', '/api/portal/requests', {
      query: { ...filters, since: dayStart(filters.since), cursor: pager.cursor },
    }),
  );
  const [search, setSearch] = useState(filters.request_id);
  const [route, setRoute] = useState(filters.route);

  const set = (name: (typeof FILTERS)[number]) => (event: { currentTarget: HTMLInputElement | HTMLSelectElement }) =>
    setFilters({ ...filters, [name]: event.currentTarget.value });

  // The fields follow the address (Back, a link).
  useEffect(() => setSearch(filters.request_id), [filters.request_id]);
  useEffect(() => setRoute(filters.route), [filters.route]);

  const find = (event: Event) => {
    event.preventDefault();
    // Only the id: the request is found whatever the filters were.
    setFilters({ request_id: search.trim() });
  };
  const applyRoute = (event: Event) => {
    event.preventDefault();
    setFilters({ ...filters, route: route.trim() });
  };

  return (
    <>
      <h1>Request log</h1>
      <form class="filters id-search" role="search" aria-label="Find a request by its id" onSubmit={find}>
        <label>
          Request id
          <input
            type="search"
            name="request_id"
            placeholder="from an error’s request_id or the X-Request-Id header"
            spellcheck={false}
            value={search}
            onInput={(event) => setSearch(event.currentTarget.value)}
          />
        </label>
        <button type="submit">Find request</button>
      </form>
      {filters.request_id && (
        <p>
          Showing the request <code>{filters.request_id}</code>.{' '}
          <button
            type="button"
            class="secondary"
            onClick={() => {
              setSearch('');
              setFilters({});
            }}
          >
            Show every request
          </button>
        </p>
      )}
      <div class="filters">
        <FilterSelect
          label="Status"
          all="All statuses"
          value={filters.status}
          options={STATUSES}
          onChange={(status) => setFilters({ ...filters, status })}
        />
        <FilterSelect
          label="Method"
          all="All methods"
          value={filters.method}
          options={METHODS}
          onChange={(method) => setFilters({ ...filters, method })}
        />
        <label>
          Since
          <input type="date" value={filters.since} onChange={set('since')} />
        </label>
        <form class="inline-fields" aria-label="Filter by route" onSubmit={applyRoute}>
          <label>
            Route
            <input
              placeholder="/api/external/medication-order/:id"
              spellcheck={false}
              value={route}
              onInput={(event) => setRoute(event.currentTarget.value)}
            />
          </label>
          <button type="submit" class="secondary">
            Apply route
          </button>
        </form>
        <button type="button" class="secondary" onClick={list.reload} disabled={list.loading}>
          Refresh
        </button>
      </div>
      <ErrorMessage error={list.error} />
      {list.loading && <Loading what="requests" />}
      {list.data?.items.length === 0 && (
        <Empty>
          {filters.request_id
            ? 'No request of the clinic has that id (the log keeps 14 days).'
            : 'No request matches these filters.'}
        </Empty>
      )}
      {list.data && list.data.items.length > 0 && (
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">Requests, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Request</th>
                <th scope="col">Status</th>
                <th scope="col">Duration</th>
                <th scope="col">Error</th>
                <th scope="col">Request id</th>
                <th scope="col">Credential</th>
              </tr>
            </thead>
            <tbody>
              {list.data.items.map((entry) => (
                <tr key={entry.id}>
                  <td>
                    <Time iso={entry.occurred_at} />
                  </td>
                  <td>
                    <code class="breakable">
                      {entry.method} {entry.route}
                    </code>
                  </td>
                  <td>
                    <span class={entry.status >= 400 ? 'status status-failed' : 'status status-delivered'}>{entry.status}</span>
                  </td>
                  <td class="nowrap">{entry.duration_ms} ms</td>
                  <td>
                    {entry.error_code ? (
                      <>
                        <code>{entry.error_code}</code>
                        {entry.error_message && <div>{entry.error_message}</div>}
                      </>
                    ) : (
                      <span class="muted">—</span>
                    )}
                  </td>
                  <td>
                    <code class="breakable">{entry.request_id}</code>
                    {entry.idempotency_key && (
                      <div class="muted">
                        Idempotency key <code class="breakable">{entry.idempotency_key}</code>
                      </div>
                    )}
                  </td>
                  <td>
                    {entry.api_key_id ? (
                      <>
                        key <code class="breakable">{entry.api_key_id}</code>
                      </>
                    ) : entry.oauth_client_id ? (
                      <>
                        OAuth client <code class="breakable">{entry.oauth_client_id}</code>
                      </>
                    ) : (
                      <span class="muted">—</span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager pager={pager} nextCursor={list.data?.next_cursor} label="Pages of requests" />
    </>
  );
}
