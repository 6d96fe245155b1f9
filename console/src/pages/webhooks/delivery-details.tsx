import { api } from '../../api';
import { DeliveryPanel, deliveryDetailKey } from '../../components/delivery-rows';
import { Time } from '../../components/feedback';
import { useResource } from '../../components/use-resource';
import type { Delivery } from './types';

/**
 * A delivery's ids, its attempts (status, time, duration, error) and the body it sends, loaded when
 * shown; loaded again when its row says something happened since (a retry queued, a new attempt).
 */
export function DeliveryDetails({ delivery }: { delivery: Delivery }) {
  const detail = useResource(deliveryDetailKey(delivery), () =>
    api('GET', '/api/admin/webhook-deliveries/{id}', { path: { id: delivery.delivery_id } }),
  );
  return (
    <DeliveryPanel
      delivery={delivery}
      detail={detail}
      facts={
        <>
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
        </>
      }
    >
      {detail.data && (
        <details>
          <summary>Body sent</summary>
          <pre>{prettyJson(detail.data.body)}</pre>
        </details>
      )}
    </DeliveryPanel>
  );
}

function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
