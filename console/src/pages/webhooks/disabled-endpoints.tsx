import { useState } from 'preact/hooks';
import { api } from '../../api';
import type { ClinicDirectory } from '../../components/clinics';
import { handler } from '../../components/events';
import { Empty, ErrorMessage, Loading, Notice, Time } from '../../components/feedback';
import { Pager, usePager } from '../../components/pager';
import { useResource } from '../../components/use-resource';
import { EndpointCells } from './endpoint-cells';
import type { Endpoint } from './types';

/**
 * The endpoints disabled after repeated failure (or a 410 Gone), a page at a time, with Re-enable;
 * optionally their failed deliveries are queued again (`onRedelivered` then reloads the log).
 */
export function DisabledEndpoints({ clinics, onRedelivered }: { clinics: ClinicDirectory; onRedelivered: () => void }) {
  const pager = usePager('disabled');
  const list = useResource(`disabled ${pager.cursor ?? ''}`, () =>
    api('GET', '/api/admin/webhook-endpoints', { query: { status: 'disabled', cursor: pager.cursor } }),
  );
  const [redeliver, setRedeliver] = useState(false);
  const [enabling, setEnabling] = useState<string | null>(null);
  const [enableError, setEnableError] = useState<unknown>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const enable = async (endpoint: Endpoint) => {
    setEnabling(endpoint.webhook_id);
    setEnableError(null);
    setNotice(null);
    try {
      const enabled = await api('POST', '/api/admin/webhook-endpoints/{id}/enable', {
        path: { id: endpoint.webhook_id },
        query: { redeliver_failed: redeliver ? 'true' : undefined },
      });
      if (list.data) {
        const endpoints = list.data.endpoints.filter((item) => item.webhook_id !== enabled.webhook_id);
        list.setData({ ...list.data, endpoints });
      }
      const queued = enabled.redelivered === 1 ? '1 failed delivery' : `${enabled.redelivered} failed deliveries`;
      setNotice(`${enabled.webhook_url} is enabled again${redeliver ? `; ${queued} queued again` : ''}.`);
      // The endpoint is live again (the Endpoints list), and its failed deliveries may be queued (the log).
      onRedelivered();
    } catch (failure) {
      setEnableError(failure);
    } finally {
      setEnabling(null);
    }
  };

  return (
    <section aria-labelledby="disabled-endpoints">
      <h2 id="disabled-endpoints">Disabled endpoints</h2>
      <p class="muted">
        An endpoint is disabled when every attempt has failed for 5 days, or when it answered 410 Gone. Fix it (the partner can
        check it with a test call) before enabling it again.
      </p>
      <div class="filters">
        <label class="check">
          <input type="checkbox" checked={redeliver} onChange={(event) => setRedeliver(event.currentTarget.checked)} />
          Also queue the endpoint’s failed deliveries again
        </label>
      </div>
      {notice && <Notice>{notice}</Notice>}
      <ErrorMessage error={enableError} />
      <ErrorMessage error={list.error} />
      {list.loading && <Loading what="disabled endpoints" />}
      {list.data && list.data.endpoints.length === 0 && <Empty>No endpoint is disabled.</Empty>}
      {list.data && list.data.endpoints.length > 0 && (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Endpoint</th>
                <th scope="col">Clinic</th>
                <th scope="col">Disabled</th>
                <th scope="col">Reason</th>
                <th scope="col">Limits</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {list.data.endpoints.map((endpoint) => (
                <tr key={endpoint.webhook_id}>
                  <EndpointCells url={endpoint.webhook_url} clinicId={endpoint.clinic_id} names={clinics.names} />
                  <td>
                    <Time iso={endpoint.disabled_at} />
                  </td>
                  <td>{endpoint.disabled_reason ?? <span class="muted">—</span>}</td>
                  <td class="nowrap">
                    {endpoint.max_in_flight} at once
                    <br />
                    {endpoint.max_per_second === null ? (
                      <span class="muted">no limit per second</span>
                    ) : (
                      `${endpoint.max_per_second} per second`
                    )}
                  </td>
                  <td>
                    <button type="button" disabled={enabling === endpoint.webhook_id} onClick={handler(() => enable(endpoint))}>
                      Re-enable
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager pager={pager} nextCursor={list.data?.next_cursor} label="Pages of disabled endpoints" />
    </section>
  );
}
