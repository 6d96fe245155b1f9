import { api } from '../../api';
import { Empty, ErrorMessage, Loading, Time } from '../../components/feedback';
import { useResource } from '../../components/use-resource';
import type { Delivery } from './types';

/**
 * A delivery's ids, its attempts (status, time, duration, error) and the body it sends, loaded when
 * shown; loaded again when its row says something happened since (a retry queued, a new attempt).
 */
export function DeliveryDetails({ delivery }: { delivery: Delivery }) {
  const detail = useResource(`${delivery.delivery_id} ${delivery.status} ${delivery.attempt_count}`, () =>
    api('GET', '/api/admin/webhook-deliveries/{id}', { path: { id: delivery.delivery_id } }),
  );
  return (
    <div class="details">
      <dl class="facts">
        <dt>Delivery id</dt>
        <dd>
          <code>{delivery.delivery_id}</code>
        </dd>
        <dt>Event id</dt>
        <dd>
          <code>{delivery.event_id}</code> <span class="muted">(the webhook-id header)</span>
        </dd>
        {delivery.medication_request_id && (
          <>
            <dt>Order id</dt>
            <dd>
              <a href={`/console/orders/${delivery.medication_request_id}`}>
                <code>{delivery.medication_request_id}</code>
              </a>
            </dd>
          </>
        )}
        <dt>Endpoint</dt>
        <dd>
          <code>{delivery.webhook_url}</code>
        </dd>
        {delivery.status === 'pending' && (
          <>
            <dt>Next attempt</dt>
            <dd>
              <Time iso={delivery.next_attempt_at} />
            </dd>
          </>
        )}
        {delivery.delivered_at && (
          <>
            <dt>Delivered</dt>
            <dd>
              <Time iso={delivery.delivered_at} />
            </dd>
          </>
        )}
      </dl>
      <ErrorMessage error={detail.error} />
      {detail.loading && <Loading what="attempts" />}
      {detail.data && detail.data.attempts.length === 0 && <Empty>No attempt yet.</Empty>}
      {detail.data && detail.data.attempts.length > 0 && (
        <div class="table-wrap">
          <table>
            <caption>Attempts</caption>
            <thead>
              <tr>
                <th scope="col">Attempt</th>
                <th scope="col">Time</th>
                <th scope="col">Duration</th>
                <th scope="col">Status</th>
                <th scope="col">Error</th>
              </tr>
            </thead>
            <tbody>
              {detail.data.attempts.map((attempt) => (
                <tr key={attempt.attempt_number}>
                  <td>{attempt.attempt_number}</td>
                  <td>
                    <Time iso={attempt.attempted_at} />
                  </td>
                  <td class="nowrap">{attempt.duration_ms} ms</td>
                  <td>
                    {attempt.response_status ?? <span class="muted">no answer</span>}
                    {attempt.throttled && <span class="muted"> (throttled: not held against the endpoint)</span>}
                  </td>
                  <td>
                    {attempt.error ?? <span class="muted">—</span>}
                    {attempt.response_body && (
                      <details>
                        <summary>Response body</summary>
                        <pre>{attempt.response_body}</pre>
                      </details>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {detail.data && (
        <details>
          <summary>Body sent</summary>
          <pre>{prettyJson(detail.data.body)}</pre>
        </details>
      )}
    </div>
  );
}

/** An attempt's outcome: the HTTP status received, and the error recorded (why there was no status, or what it meant). */
export function AttemptResult({ status, error }: { status: number | null; error: string | null }) {
  if (status === null && error === null) return null;
  const statusText = status === null ? null : `HTTP ${status}`;
  return (
    <>
      {statusText}
      {/* The worker records "HTTP 500" as the error of a 500: said once. */}
      {error !== null && error !== statusText && (
        <>
          {statusText && <br />}
          <span class={statusText ? 'muted' : undefined}>{error}</span>
        </>
      )}
    </>
  );
}

function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
