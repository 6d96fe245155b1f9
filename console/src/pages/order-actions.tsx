import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api';
import { handler } from '../components/events';
import { ErrorMessage, Notice, Time } from '../components/feedback';
import { movesOf } from '../../../src/orders/order-status.js';
import { STATUS_LABEL } from '../components/labels';
import { useMayCall } from '../session';
import { StatusBadge, useOrderNotice, type OrderStatus, type OrderDetail, type OrderView } from './order-shared';

/** The button of each status an order can move to (nothing moves back to pending). */
const ACTION_LABEL: Partial<Record<OrderStatus, string>> = {
  processing: 'Start processing',
  shipped: 'Mark shipped',
  delivered: 'Mark delivered',
  cancelled: 'Cancel order',
};

/**
 * The status and the changes the lifecycle allows from it (the server's own rule table), for a role
 * that may move orders (a technician sees the status only). The page shows the API's answer at once:
 * no reload.
 */
export function StatusPanel({
  order,
  onChanged,
}: {
  order: OrderDetail;
  onChanged: (answer: OrderView, cancelReason?: string) => void;
}) {
  const [error, setError] = useState<unknown>(null);
  // Shown while the order is as this move left it: the next action (a hold, a fill…) clears it.
  const [done, setDone] = useOrderNotice(order);
  const [busy, setBusy] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [tracking, setTracking] = useState('');
  const summary = useRef<HTMLDivElement>(null);
  const mayMove = useMayCall()('POST', '/api/admin/medication-requests/:id/status');
  // The server's rule (an order held after it shipped cannot be cancelled), not the status's alone.
  const next = mayMove ? movesOf(order) : [];

  const change = async (to: OrderStatus, details: { trackingNumber?: string; reason?: string } = {}) => {
    setBusy(true);
    setError(null);
    setDone(order, null);
    try {
      const answer = await api('POST', '/api/admin/medication-requests/{id}/status', {
        path: { id: order.medication_request_id },
        body: {
          status: to,
          ...(details.trackingNumber === undefined ? {} : { tracking_number: details.trackingNumber }),
          ...(details.reason === undefined ? {} : { reason: details.reason }),
        },
      });
      setConfirming(false);
      setTracking('');
      onChanged(answer, details.reason);
      setDone(answer, `The order is now ${STATUS_LABEL[answer.status].toLowerCase()}.`);
      // The button pressed is gone: keyboard users continue from the new status.
      summary.current?.focus();
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="status-heading" class="status-panel">
      <div ref={summary} tabIndex={-1} class="status-line">
        <h2 id="status-heading">Status</h2> <StatusBadge status={order.status} />
        <span class="muted">
          created <Time iso={order.created_at} />
          {order.shipped_at && (
            <>
              , shipped <Time iso={order.shipped_at} />
            </>
          )}
          {order.delivered_at && (
            <>
              , delivered <Time iso={order.delivered_at} />
            </>
          )}
          {order.cancelled_at && (
            <>
              , cancelled <Time iso={order.cancelled_at} />
            </>
          )}
        </span>
      </div>
      {done && <Notice>{done}</Notice>}
      <ErrorMessage error={error} />
      {next.length > 0 && (
        <div class="actions">
          {next.map((to) =>
            to === 'shipped' ? (
              <form
                key={to}
                class="inline"
                onSubmit={handler(async (event: Event) => {
                  event.preventDefault();
                  await change('shipped', { trackingNumber: tracking.trim() });
                })}
              >
                <label>
                  Tracking number
                  <input
                    name="tracking_number"
                    required
                    minLength={5}
                    maxLength={64}
                    autocomplete="off"
                    spellcheck={false}
                    value={tracking}
                    onInput={(event) => setTracking(event.currentTarget.value)}
                  />
                </label>
                <button type="submit" disabled={busy}>
                  {ACTION_LABEL.shipped}
                </button>
              </form>
            ) : to === 'cancelled' ? (
              !confirming && (
                <button key={to} type="button" class="danger" disabled={busy} onClick={() => setConfirming(true)}>
                  {ACTION_LABEL.cancelled}
                </button>
              )
            ) : (
              <button key={to} type="button" disabled={busy} onClick={handler(() => change(to))}>
                {ACTION_LABEL[to]}
              </button>
            ),
          )}
        </div>
      )}
      {confirming && next.includes('cancelled') && (
        <CancelConfirmation
          busy={busy}
          onConfirm={(reason) => change('cancelled', { reason })}
          onKeep={() => setConfirming(false)}
        />
      )}
    </section>
  );
}

/** The longest reason the API keeps (CANCEL_REASON_MAX_LENGTH in src/fulfillment/order-operator.schemas.ts). */
const REASON_MAX_LENGTH = 500;

/**
 * Cancelling is final: the page asks once more, in the page (no browser dialog), and for the reason,
 * which the order's history keeps (the clinic is told of the cancellation, never of the reason).
 */
function CancelConfirmation({
  busy,
  onConfirm,
  onKeep,
}: {
  busy: boolean;
  onConfirm: (reason: string) => Promise<void>;
  onKeep: () => void;
}) {
  const [reason, setReason] = useState('');
  const field = useRef<HTMLTextAreaElement>(null);
  useEffect(() => field.current?.focus(), []);
  return (
    <form
      class="confirm"
      aria-labelledby="confirm-cancel"
      onSubmit={handler(async (event: Event) => {
        event.preventDefault();
        await onConfirm(reason.trim());
      })}
    >
      <p id="confirm-cancel">Cancel this order? The clinic is told, and a cancelled order cannot be resumed.</p>
      <label>
        Reason for cancelling
        <textarea
          ref={field}
          name="reason"
          required
          rows={2}
          maxLength={REASON_MAX_LENGTH}
          aria-describedby="cancel-reason-hint"
          value={reason}
          onInput={(event) => setReason(event.currentTarget.value)}
        />
      </label>
      <p id="cancel-reason-hint" class="hint">
        Kept in the order&rsquo;s history for the pharmacy; the clinic is not shown it.
      </p>
      <div class="actions">
        <button type="submit" class="danger" disabled={busy || reason.trim() === ''}>
          Confirm cancellation
        </button>
        <button type="button" class="secondary" disabled={busy} onClick={onKeep}>
          Keep the order
        </button>
      </div>
    </form>
  );
}
