import { api } from '../../api';
import { AttemptsTable } from '../../components/attempts';
import { ErrorMessage, Loading, Time } from '../../components/feedback';
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
      {detail.data && <AttemptsTable attempts={detail.data.attempts} />}
      {detail.data && (
        <details>
          <summary>Body sent</summary>
          <pre>{prettyJson(detail.data.body)}</pre>
        </details>
      )}
    </div>
  );
}

function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
