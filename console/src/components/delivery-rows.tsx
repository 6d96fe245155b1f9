import { Fragment, type ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import type { OperatorData, PortalData } from '../api-types';
import { AttemptsTable, type AttemptRow } from './attempts';
import { handler } from './events';
import { ErrorMessage, Loading, Notice, Time } from './feedback';

/** A webhook delivery as the operator API and the portal API both list it, in what these pieces read. */
type DeliveryLike = Pick<
  OperatorData<'listOperatorWebhookDeliveries'>['items'][number] | PortalData<'portalListWebhookDeliveries'>['items'][number],
  DeliveryField
>;
type DeliveryField = 'delivery_id' | 'event_id' | 'attempt_count' | 'delivered_at' | 'status';

/** What the last send-again did, shown below its delivery's row. */
interface Outcome {
  deliveryId: string;
  notice?: string;
  error?: unknown;
}

/**
 * Sending deliveries again (Retry in the console, Resend in the portal): `send` asks the API and
 * answers the delivery queued, which replaces its row in `list`; the outcome goes below the row.
 */
export function useSendAgain<D extends DeliveryLike, L extends { items: D[] }>(
  list: { data: L | null; setData: (data: L) => void },
  send: (delivery: D) => Promise<D>,
) {
  const [sending, setSending] = useState<string | null>(null);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const sendAgain = async (delivery: D) => {
    setSending(delivery.delivery_id);
    setOutcome(null);
    try {
      const queued = await send(delivery);
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
      setSending(null);
    }
  };
  return { sending, outcome, sendAgain, clearOutcome: () => setOutcome(null) };
}

/** Which deliveries have their attempts shown: each one's button toggles it. */
export function useOpenRows() {
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  const toggle = (deliveryId: string) => {
    const next = new Set(open);
    if (!next.delete(deliveryId)) next.add(deliveryId);
    setOpen(next);
  };
  return { isOpen: (deliveryId: string) => open.has(deliveryId), toggle };
}

/**
 * A delivery's rows in a table of `columns` columns: its cells (`children`), then Actions (the
 * Attempts button, which shows `details` in a row below, and `action`); the outcome of its last
 * send-again in a row of its own.
 */
export function DeliveryRows({
  delivery,
  columns,
  open,
  onToggle,
  outcome,
  action,
  details,
  children,
}: {
  delivery: DeliveryLike;
  columns: number;
  open: boolean;
  onToggle: () => void;
  outcome: Outcome | null;
  action: ComponentChildren;
  details: ComponentChildren;
  children: ComponentChildren;
}) {
  const panelId = `delivery-${delivery.delivery_id}`;
  return (
    <Fragment>
      <tr>
        {children}
        <td>
          <div class="row-actions">
            <button
              type="button"
              class="secondary disclosure-button"
              aria-expanded={open}
              aria-controls={panelId}
              onClick={onToggle}
            >
              Attempts ({delivery.attempt_count})
            </button>
            {action}
          </div>
        </td>
      </tr>
      {outcome?.deliveryId === delivery.delivery_id && (
        <tr class="outcome-row">
          <td colSpan={columns}>
            {outcome.notice && <Notice>{outcome.notice}</Notice>}
            <ErrorMessage error={outcome.error} />
          </td>
        </tr>
      )}
      {open && (
        <tr id={panelId} class="details-row">
          <td colSpan={columns}>{details}</td>
        </tr>
      )}
    </Fragment>
  );
}

/** The send-again button of a delivery's row (`label`: Retry or Resend), disabled while it is sent. */
export function SendAgainButton<D extends DeliveryLike>({
  label,
  delivery,
  sender,
}: {
  label: string;
  delivery: D;
  sender: { sending: string | null; sendAgain: (delivery: D) => Promise<void> };
}) {
  return (
    <button type="button" disabled={sender.sending === delivery.delivery_id} onClick={handler(() => sender.sendAgain(delivery))}>
      {label}
    </button>
  );
}

/**
 * A delivery's panel: its ids, the facts the caller adds (`facts`, as dt/dd pairs), when it was
 * delivered, then its attempts (`detail`: the delivery loaded with them) and what the caller adds.
 */
export function DeliveryPanel({
  delivery,
  detail,
  facts,
  children,
}: {
  delivery: DeliveryLike;
  detail: { data: { attempts: readonly AttemptRow[] } | null; error: unknown; loading: boolean };
  facts?: ComponentChildren;
  children?: ComponentChildren;
}) {
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
        {facts}
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
      {children}
    </div>
  );
}

/** The key a delivery's panel loads it again by: whenever its row says something happened. */
export const deliveryDetailKey = (delivery: DeliveryLike) =>
  `${delivery.delivery_id} ${delivery.status} ${delivery.attempt_count}`;
