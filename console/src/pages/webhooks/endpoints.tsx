import { useState } from 'preact/hooks';
import { api } from '../../api';
import type { ClinicDirectory } from '../../components/clinics';
import { handler } from '../../components/events';
import { Empty, ErrorMessage, Loading, Notice, Time } from '../../components/feedback';
import { Pager, usePager } from '../../components/pager';
import { useResource } from '../../components/use-resource';
import { EndpointCells } from './endpoint-cells';
import { hostOf, type Endpoint } from './types';

const HOUR = 3_600_000;
/**
 * How far back a recovery reaches. The API refuses more than 7 days before its own clock: the
 * longest choice stops 10 minutes short, so that a browser clock a little behind the server's
 * still asks for what the API allows.
 */
const REACH = [
  { value: '', label: 'the last 24 hours', ms: 0 },
  { value: '3d', label: 'the last 3 days', ms: 3 * 24 * HOUR },
  { value: '7d', label: 'the last 7 days', ms: 7 * 24 * HOUR - 10 * 60_000 },
] as const;

/**
 * The live endpoints, each with its host (two endpoints of one clinic told apart) and Recover:
 * after an outage, every failed or waiting delivery of the endpoint from the period chosen is sent
 * again now (`onRecovered` then reloads the log).
 */
export function ActiveEndpoints({
  clinics,
  generation,
  onRecovered,
}: {
  clinics: ClinicDirectory;
  /** Changes when an endpoint may have become active (one re-enabled): the list loads again. */
  generation: number;
  onRecovered: () => void;
}) {
  const pager = usePager('active');
  const list = useResource(`active ${pager.cursor ?? ''} ${generation}`, () =>
    api('GET', '/api/admin/webhook-endpoints', { query: { status: 'active', cursor: pager.cursor } }),
  );
  const [reach, setReach] = useState<string>('');
  const [recovering, setRecovering] = useState<string | null>(null);
  const [outcome, setOutcome] = useState<{ notice?: string; error?: unknown } | null>(null);

  const recover = async (endpoint: Endpoint) => {
    setRecovering(endpoint.webhook_id);
    setOutcome(null);
    const chosen = REACH.find((option) => option.value === reach) ?? REACH[0];
    const body = chosen.ms === 0 ? {} : { since: new Date(Date.now() - chosen.ms).toISOString() };
    try {
      const { scheduled } = await api('POST', '/api/admin/webhook-endpoints/{webhookId}/recover', {
        path: { webhookId: endpoint.webhook_id },
        body,
      });
      const count = scheduled === 1 ? '1 delivery' : `${scheduled} deliveries`;
      setOutcome({ notice: `${hostOf(endpoint.webhook_url)}: ${count} from ${chosen.label} queued for an attempt now.` });
      if (scheduled > 0) onRecovered();
    } catch (failure) {
      setOutcome({ error: failure });
    } finally {
      setRecovering(null);
    }
  };

  return (
    <section aria-labelledby="endpoints">
      <h2 id="endpoints">Endpoints</h2>
      <p class="muted">
        After a partner’s outage, Recover sends every failed or waiting delivery of its endpoint again now (deliveries in flight,
        delivered ones and test calls are left alone).
      </p>
      <div class="filters">
        <label>
          Recover deliveries from
          <select value={reach} onChange={(event) => setReach(event.currentTarget.value)}>
            {REACH.map((option) => (
              <option key={option.value} value={option.value}>
                {option.label}
              </option>
            ))}
          </select>
        </label>
      </div>
      {outcome?.notice && <Notice>{outcome.notice}</Notice>}
      <ErrorMessage error={outcome?.error} />
      <ErrorMessage error={list.error} />
      {list.loading && <Loading what="endpoints" />}
      {list.data && list.data.endpoints.length === 0 && <Empty>No endpoint is registered.</Empty>}
      {list.data && list.data.endpoints.length > 0 && (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Endpoint</th>
                <th scope="col">Clinic</th>
                <th scope="col">Failing since</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {list.data.endpoints.map((endpoint) => (
                <tr key={endpoint.webhook_id}>
                  <EndpointCells url={endpoint.webhook_url} clinicId={endpoint.clinic_id} names={clinics.names} />
                  <td>
                    {endpoint.failing_since ? <Time iso={endpoint.failing_since} /> : <span class="muted">not failing</span>}
                  </td>
                  <td>
                    <button
                      type="button"
                      aria-label={`Recover ${endpoint.webhook_url}`}
                      disabled={recovering === endpoint.webhook_id}
                      onClick={handler(() => recover(endpoint))}
                    >
                      Recover
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager pager={pager} nextCursor={list.data?.next_cursor} label="Pages of endpoints" />
    </section>
  );
}
