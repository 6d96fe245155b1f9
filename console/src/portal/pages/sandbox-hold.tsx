import { useState } from 'preact/hooks';
import { api } from '../../api';
import { useAction } from '../../components/action';
import { Disclosure } from '../../components/disclosure';
import { handler } from '../../components/events';
import { ErrorMessage } from '../../components/feedback';
import { FormActions } from '../../components/form-actions';
import type { HoldReason, SandboxHoldBody, SandboxOrder } from '../types';

type WaitingOn = 'partner' | 'pharmacy';

/**
 * The sandbox's holds (development only): "Put on hold" with any reason of the catalog, as the
 * pharmacy would, and "Resume" for an order on hold, so that a developer sees `order.on_hold` and
 * `order.resumed` and tries "Needs your answer" without waiting for the pharmacy.
 */
export function SandboxHoldActions({
  order,
  reasons,
  onChanged,
}: {
  order: SandboxOrder;
  reasons: readonly HoldReason[];
  onChanged: (notice: string) => void;
}) {
  const action = useAction();
  if (order.status === 'on_hold') {
    const resume = async () => {
      await action.run(async () => {
        const resumed = await api('POST', '/api/portal/sandbox/orders/{orderId}/resume', { path: { orderId: order.order_id } });
        onChanged(
          `Order ${order.order_id} is resumed, back to ${resumed.status}: its webhook event order.resumed is on its way.`,
        );
      });
    };
    return (
      <>
        <button type="button" disabled={action.busy} onClick={handler(resume)}>
          Resume
        </button>
        <ErrorMessage error={action.error} />
      </>
    );
  }
  if (order.status !== 'pending' && order.status !== 'processing') return null;
  return (
    <Disclosure label="Put on hold">
      {(close) => (
        <HoldForm
          order={order}
          reasons={reasons}
          onCancel={close}
          onHeld={(notice) => {
            close();
            onChanged(notice);
          }}
        />
      )}
    </Disclosure>
  );
}

function HoldForm({
  order,
  reasons,
  onCancel,
  onHeld,
}: {
  order: SandboxOrder;
  reasons: readonly HoldReason[];
  onCancel: () => void;
  onHeld: (notice: string) => void;
}) {
  const [code, setCode] = useState(reasons[0]?.code ?? '');
  const [message, setMessage] = useState('');
  const [waitingOn, setWaitingOn] = useState<WaitingOn>('partner');
  const action = useAction();
  const reason = reasons.find((r) => r.code === code);
  // `other` says whom it waits on; every other reason's catalog entry does.
  const asksWaitingOn = reason !== undefined && reason.waiting_on === null;

  const submit = async (event: Event) => {
    event.preventDefault();
    await action.run(async () => {
      const held = await api('POST', '/api/portal/sandbox/orders/{orderId}/hold', {
        path: { orderId: order.order_id },
        body: {
          // A code of the catalog the server answered (GET /api/portal/hold-reasons).
          reason_code: code as SandboxHoldBody['reason_code'],
          ...(message.trim() ? { message } : {}),
          ...(asksWaitingOn ? { waiting_on: waitingOn } : {}),
        },
      });
      const on = held.hold?.waiting_on === 'partner' ? 'your answer (see Needs your answer)' : 'the pharmacy';
      onHeld(`Order ${order.order_id} is on hold, waiting on ${on}: its webhook event order.on_hold is on its way.`);
    });
  };

  return (
    <form aria-label={`Put order ${order.order_id} on hold`} onSubmit={handler(submit)}>
      <label>
        Reason
        <select value={code} onChange={(event) => setCode(event.currentTarget.value)}>
          {reasons.map((r) => (
            <option key={r.code} value={r.code}>
              {r.code}: {r.reason}
            </option>
          ))}
        </select>
      </label>
      {reason && <p class="hint">What resolves it: {reason.answer}</p>}
      {asksWaitingOn && (
        <label>
          Waiting on
          <select value={waitingOn} onChange={(event) => setWaitingOn(event.currentTarget.value as WaitingOn)}>
            <option value="partner">your clinic</option>
            <option value="pharmacy">the pharmacy</option>
          </select>
        </label>
      )}
      <label>
        The pharmacy’s message (optional)
        <textarea maxLength={2000} rows={2} value={message} onInput={(event) => setMessage(event.currentTarget.value)} />
      </label>
      <FormActions action={action} submit="Put on hold" onCancel={onCancel} />
    </form>
  );
}
