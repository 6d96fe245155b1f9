import { useState } from 'preact/hooks';
import { api } from '../../api';
import { useAction } from '../../components/action';
import { ConfirmButton } from '../../components/confirm';
import { handler } from '../../components/events';
import { Empty, ErrorMessage, Loading, Notice, Time } from '../../components/feedback';
import { Pager, usePager } from '../../components/pager';
import { useResource } from '../../components/use-resource';
import { useRefreshHoldCount } from '../hold-count';
import { ReadOnlyNote } from '../read-only';
import { useCanChange } from '../session';
import type { HeldOrder, HoldAnswer, HoldAnswerBody } from '../types';

/**
 * "Needs your answer" (docs/portal.md): the clinic's orders the pharmacy put on hold, those waiting on
 * the clinic first with the reason explained and the answer form (developers), then those answered
 * and waiting on the pharmacy.
 */
export function HoldsPage() {
  const pager = usePager('holds');
  const [generation, setGeneration] = useState(0);
  const refreshCount = useRefreshHoldCount();
  const list = useResource(`holds ${pager.cursor ?? ''} ${generation}`, () =>
    api('GET', '/api/portal/holds', { query: { cursor: pager.cursor } }),
  );
  const [notice, setNotice] = useState<string | null>(null);
  const items = list.data?.items ?? [];
  const waitingOnUs = items.filter((order) => order.hold.waiting_on === 'partner');
  const waitingOnPharmacy = items.filter((order) => order.hold.waiting_on !== 'partner');

  const answered = (answer: HoldAnswer) => {
    setNotice(answeredNotice(answer));
    setGeneration((n) => n + 1);
    refreshCount();
  };

  return (
    <>
      <h1>Needs your answer</h1>
      <p>
        The pharmacy stops an order when it needs something from your clinic (a clarified prescription, a deliverable address) or
        from itself (an out-of-stock compound, the prescriber’s call). Your answer goes to the pharmacist; an order waiting on you
        does not move until you answer.
      </p>
      <ReadOnlyNote />
      {notice && <Notice>{notice}</Notice>}
      <ErrorMessage error={list.error} />
      {list.loading && !list.data && <Loading what="orders on hold" />}
      {list.data && (
        <>
          <section aria-labelledby="waiting-on-you">
            <h2 id="waiting-on-you">Waiting on your answer ({list.data.waiting_on_partner})</h2>
            {waitingOnUs.length === 0 ? (
              <Empty>No order waits on your answer.</Empty>
            ) : (
              waitingOnUs.map((order) => <HeldOrderCard key={order.medication_request_id} order={order} onAnswered={answered} />)
            )}
          </section>
          <section aria-labelledby="waiting-on-pharmacy">
            <h2 id="waiting-on-pharmacy">Answered — waiting on the pharmacy ({list.data.waiting_on_pharmacy})</h2>
            {waitingOnPharmacy.length === 0 ? (
              <Empty>No order on hold waits on the pharmacy.</Empty>
            ) : (
              waitingOnPharmacy.map((order) => <HeldOrderCard key={order.medication_request_id} order={order} />)
            )}
          </section>
        </>
      )}
      <Pager pager={pager} nextCursor={list.data?.next_cursor} label="Pages of orders on hold" />
    </>
  );
}

function answeredNotice(answer: HoldAnswer): string {
  const order = answer.medication_request_id;
  if (answer.status === 'cancelled') return `Order ${order} is cancelled.`;
  if (answer.status === 'on_hold') return `Your answer is sent: order ${order} now waits on the pharmacy.`;
  return `Your answer is sent: order ${order} is back to ${answer.status}.`;
}

/** One held order: why, what resolves it, the pharmacy's message, the conversation; the form when it waits on us. */
function HeldOrderCard({ order, onAnswered }: { order: HeldOrder; onAnswered?: (answer: HoldAnswer) => void }) {
  const canChange = useCanChange();
  const { hold } = order;
  return (
    <article class="hold-card" aria-label={`Order ${order.medication_request_id}`}>
      <h3>
        Order{' '}
        <a href={`/portal/orders/${order.medication_request_id}`}>
          <code class="breakable">{order.medication_request_id}</code>
        </a>
      </h3>
      <dl class="facts">
        <dt>Reason</dt>
        <dd>{hold.reason}</dd>
        <dt>What resolves it</dt>
        <dd>{order.answer}</dd>
        <dt>The pharmacy’s message</dt>
        <dd class="message">{hold.message}</dd>
        <dt>On hold since</dt>
        <dd>
          <Time iso={hold.since} /> (held from {order.held_from}; ordered <Time iso={order.created_at} />)
        </dd>
        {order.answered_at && (
          <>
            <dt>Answered</dt>
            <dd>
              <Time iso={order.answered_at} />
            </dd>
          </>
        )}
      </dl>
      {order.hold_history.length > 0 && (
        <details>
          <summary>History of this hold ({order.hold_history.length})</summary>
          <ol class="hold-history">
            {order.hold_history.map((entry, index) => (
              <li key={index}>
                <Time iso={entry.at} /> <strong>{HISTORY_KIND[entry.kind]}</strong> by {ACTOR[entry.actor] ?? entry.actor}
                {entry.message && <span class="message">: {entry.message}</span>}
              </li>
            ))}
          </ol>
        </details>
      )}
      {onAnswered && hold.waiting_on === 'partner' && canChange && <AnswerForm order={order} onAnswered={onAnswered} />}
    </article>
  );
}

const HISTORY_KIND: Record<HeldOrder['hold_history'][number]['kind'], string> = {
  hold: 'Put on hold',
  answer: 'Answered',
  resolve: 'One hold resolved',
  resume: 'Resumed',
};
const ACTOR: Partial<Record<string, string>> = { operator: 'the pharmacy', partner: 'your clinic', sandbox: 'the sandbox' };

type AddressBody = NonNullable<HoldAnswerBody['address']>;
const NO_ADDRESS: AddressBody = { addressLine1: '', addressLine2: '', city: '', state: '', postalCode: '' };

/** The answer: a message; a corrected address for an undeliverable one; or the order cancelled instead, once confirmed. */
function AnswerForm({ order, onAnswered }: { order: HeldOrder; onAnswered: (answer: HoldAnswer) => void }) {
  const [message, setMessage] = useState('');
  const [address, setAddress] = useState<AddressBody>(NO_ADDRESS);
  const [cancel, setCancel] = useState(false);
  const action = useAction();
  const asksAddress = order.hold.reason_code === 'address_undeliverable';
  const id = order.medication_request_id;

  const send = () =>
    action.run(async () => {
      const body: HoldAnswerBody = { message };
      if (cancel) body.cancel = true;
      else if (asksAddress && Object.values(address).some((value) => value.trim() !== '')) {
        const { addressLine2, ...required } = address;
        body.address = addressLine2?.trim() ? address : required;
      }
      onAnswered(await api('POST', '/api/portal/holds/{orderId}/response', { path: { orderId: id }, body }));
    });

  const field = (name: keyof AddressBody, label: string, autocomplete: string) => (
    <label>
      {label}
      <input
        value={address[name] ?? ''}
        autocomplete={autocomplete}
        required={name !== 'addressLine2'}
        onInput={(event) => {
          const { value } = event.currentTarget;
          setAddress((previous) => ({ ...previous, [name]: value }));
        }}
      />
    </label>
  );

  return (
    <form
      aria-label={`Answer for order ${id}`}
      onSubmit={handler(async (event: Event) => {
        event.preventDefault();
        await send();
      })}
    >
      <label>
        Your answer
        <textarea required maxLength={2000} rows={3} value={message} onInput={(event) => setMessage(event.currentTarget.value)} />
      </label>
      {asksAddress && !cancel && (
        <fieldset>
          <legend>Corrected shipping address (resumes the order at once)</legend>
          {field('addressLine1', 'Address line 1', 'address-line1')}
          {field('addressLine2', 'Address line 2 (optional)', 'address-line2')}
          {field('city', 'City', 'address-level2')}
          {field('state', 'State', 'address-level1')}
          {field('postalCode', 'ZIP code', 'postal-code')}
        </fieldset>
      )}
      {/* A shipped order (held for a delivery exception) cannot be cancelled: the API refuses it. */}
      {order.held_from !== 'shipped' && (
        <label class="check">
          <input type="checkbox" checked={cancel} onChange={(event) => setCancel(event.currentTarget.checked)} />
          Cancel the order instead
        </label>
      )}
      <ErrorMessage error={action.error} />
      <div class="actions">
        {cancel ? (
          <ConfirmButton
            label="Cancel the order"
            question="Cancel this order? The pharmacy will not fill it, and this cannot be undone."
            confirm="Yes, cancel the order"
            busy={action.busy}
            onConfirm={send}
          />
        ) : (
          <button type="submit" disabled={action.busy}>
            Send answer
          </button>
        )}
      </div>
    </form>
  );
}
