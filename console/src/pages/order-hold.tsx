// Over 250 lines: the hold panel's parts (the open holds and their resolution, the hold form, the resume form, the conversation) belong on one page and share its state.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api';
import type { OperatorBody } from '../api-types';
import { handler } from '../components/events';
import { ErrorMessage, Notice, Time } from '../components/feedback';
import { labelOf } from '../components/labels';
import { useMayCall, useSession } from '../session';
import { ActorName, useHoldReasons, useOrderNotice, type HoldStep, type OrderDetail, type OrderView } from './order-shared';

/** The longest message a hold or a resume takes (the API's rule; it refuses longer ones, naming `message`). */
const MESSAGE_MAX = 2000;

type HoldBody = OperatorBody<'holdOperatorMedicationRequest'>;
type WaitingOn = NonNullable<HoldBody['waiting_on']>;

const WAITING_ON_LABEL: Record<WaitingOn, string> = { partner: 'the partner', pharmacy: 'the pharmacy' };

/**
 * An order's holds (issues 29 and 39): while it is on hold, every open hold, prominent (reason,
 * message or conflict, whom it waits on, since when), each resolved on its own (a clinical one by
 * the pharmacist, with an override reason), **Resume** for several that are not clinical, and a
 * hold added; while it is pending or processing, **Put on hold** with a reason of the server's
 * catalog and a message to the partner. The page shows the API's answer at once.
 */
export function HoldPanel({ order, onChanged }: { order: OrderDetail; onChanged: (answer: OrderView) => void }) {
  const mayCall = useMayCall();
  // Shown while the order is as the hold or resume left it: the next action clears it.
  const [done, setDone] = useOrderNotice(order);
  const heading = useRef<HTMLHeadingElement>(null);
  const changed = (answer: OrderView, notice: string) => {
    onChanged(answer);
    setDone(answer, notice);
  };
  // The form used is gone: keyboard users continue from the hold's heading (or the hidden one after a resume).
  useEffect(() => {
    if (done) heading.current?.focus();
  }, [done, order.status]);

  if (order.status === 'on_hold' && order.hold) {
    const { hold, holds } = order;
    const clinicalOpen = holds.some((h) => h.clinical);
    return (
      <section aria-labelledby="hold-heading" class="hold-panel">
        <h2 id="hold-heading" ref={heading} tabIndex={-1}>
          On hold: {holds.length > 1 ? `${holds.length} holds` : hold.reason}
        </h2>
        {done && <Notice>{done}</Notice>}
        <p class="muted">The order resumes when its last open hold is resolved.</p>
        <ul class="open-holds">
          {holds.map((open) => (
            <OpenHold
              key={open.hold_id}
              orderId={order.medication_request_id}
              hold={open}
              onResolved={(answer) =>
                changed(
                  answer,
                  answer.status === 'on_hold'
                    ? `Hold resolved: ${labelOf(open.reason_code)}. The order stays on hold for its other holds.`
                    : `Resolved: the order is ${labelOf(answer.status).toLowerCase()} again.`,
                )
              }
            />
          ))}
        </ul>
        {!clinicalOpen && holds.length > 1 && mayCall('POST', '/api/admin/medication-requests/:id/resume') && (
          <ResumeForm
            orderId={order.medication_request_id}
            onResumed={(answer) => changed(answer, `Resumed: the order is ${labelOf(answer.status).toLowerCase()} again.`)}
          />
        )}
        {mayCall('POST', '/api/admin/medication-requests/:id/hold') && (
          <HoldForm orderId={order.medication_request_id} onHeld={(answer) => changed(answer, 'Hold added.')} />
        )}
      </section>
    );
  }
  if (order.status !== 'pending' && order.status !== 'processing') return null;
  if (!mayCall('POST', '/api/admin/medication-requests/:id/hold')) return null;
  return (
    <section aria-labelledby="hold-heading" class="hold-actions">
      <h2 id="hold-heading" ref={heading} tabIndex={-1} class="visually-hidden">
        Hold
      </h2>
      {done && <Notice>{done}</Notice>}
      <HoldForm orderId={order.medication_request_id} onHeld={(answer) => changed(answer, 'The order is on hold.')} />
    </section>
  );
}

type OpenHoldData = OrderDetail['holds'][number];

/**
 * One open hold: its reason, message (for a clinical hold, the conflict the intake check found),
 * whom it waits on and since when, and how to resolve it. A clinical hold is the pharmacist's own:
 * a pharmacist is asked for the override reason; anyone else reads why they cannot resolve it.
 */
function OpenHold({
  orderId,
  hold,
  onResolved,
}: {
  orderId: string;
  hold: OpenHoldData;
  onResolved: (answer: OrderView) => void;
}) {
  const { role } = useSession();
  const mayCall = useMayCall();
  const mayResolve = mayCall('POST', '/api/admin/medication-requests/:id/holds/:hold_id/resolve');
  return (
    <li class="open-hold" data-hold={hold.reason_code}>
      <h3>
        {hold.reason} {hold.clinical && <span class="badge">Clinical check</span>}
      </h3>
      <dl class="facts">
        <dt>Reason</dt>
        <dd>
          <strong>{labelOf(hold.reason_code)}</strong>
        </dd>
        <dt>{hold.clinical ? 'Conflict' : 'Message'}</dt>
        <dd class="hold-message">{hold.message}</dd>
        <dt>Waiting on</dt>
        <dd>
          <strong>{WAITING_ON_LABEL[hold.waiting_on]}</strong>
        </dd>
        <dt>Since</dt>
        <dd>
          <Time iso={hold.since} />
        </dd>
        {hold.answered_at && (
          <>
            <dt>Partner answered</dt>
            <dd>
              <Time iso={hold.answered_at} />
            </dd>
          </>
        )}
      </dl>
      {hold.clinical && role !== 'pharmacist' ? (
        <p class="notice-why" role="note">
          Only a pharmacist signed in as themselves can override a clinical hold, with a reason: you are signed in as {role}.
        </p>
      ) : (
        mayResolve && <ResolveForm orderId={orderId} hold={hold} onResolved={onResolved} />
      )}
    </li>
  );
}

/** Resolve one hold: a clinical one with the pharmacist's override reason (required), any with an optional message to the partner. */
function ResolveForm({
  orderId,
  hold,
  onResolved,
}: {
  orderId: string;
  hold: OpenHoldData;
  onResolved: (answer: OrderView) => void;
}) {
  const [overrideReason, setOverrideReason] = useState('');
  const [message, setMessage] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const text = message.trim();
      const answer = await api('POST', '/api/admin/medication-requests/{id}/holds/{hold_id}/resolve', {
        path: { id: orderId, hold_id: hold.hold_id },
        body: {
          ...(hold.clinical ? { override_reason: overrideReason.trim() } : {}),
          ...(text === '' ? {} : { message: text }),
        },
      });
      onResolved(answer);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form
      class="hold-form"
      aria-label={hold.clinical ? `Override ${hold.reason_code}` : `Resolve ${hold.reason_code}`}
      onSubmit={handler(submit)}
    >
      {hold.clinical && (
        <label>
          Override reason <span class="muted">(why the order may proceed; the pharmacy\u2019s record)</span>
          <textarea
            name="override_reason"
            required
            maxLength={MESSAGE_MAX}
            rows={3}
            value={overrideReason}
            onInput={(event) => setOverrideReason(event.currentTarget.value)}
          />
        </label>
      )}
      <PartnerMessage value={message} onInput={setMessage} />
      <ErrorMessage error={error} />
      <div class="actions">
        <button type="submit" disabled={busy || (hold.clinical && overrideReason.trim() === '')}>
          {hold.clinical ? 'Override and resolve' : 'Resolve'}
        </button>
      </div>
    </form>
  );
}

/** Put on hold: a reason of the catalog (whom it waits on, asked only for `other`), and the message the partner reads. */
function HoldForm({ orderId, onHeld }: { orderId: string; onHeld: (answer: OrderView) => void }) {
  const reasons = useHoldReasons();
  const [open, setOpen] = useState(false);
  const [reasonCode, setReasonCode] = useState('');
  const [waitingOn, setWaitingOn] = useState<WaitingOn | ''>('');
  const [message, setMessage] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const reason = reasons.data?.find((entry) => entry.code === reasonCode);
  const asksWaitingOn = reason !== undefined && reason.waiting_on === null;

  if (!open) {
    return (
      <p>
        <button type="button" class="secondary" onClick={() => setOpen(true)}>
          Put on hold
        </button>
      </p>
    );
  }
  const submit = async (event: Event) => {
    event.preventDefault();
    if (!reason) return;
    setBusy(true);
    setError(null);
    try {
      const answer = await api('POST', '/api/admin/medication-requests/{id}/hold', {
        path: { id: orderId },
        body: {
          // The catalog's codes are the body's enum (both from src/holds/hold-reasons.ts); the server checks it.
          reason_code: reason.code as HoldBody['reason_code'],
          message: message.trim(),
          ...(asksWaitingOn && waitingOn !== '' ? { waiting_on: waitingOn } : {}),
        },
      });
      setOpen(false);
      setMessage('');
      setReasonCode('');
      onHeld(answer);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="hold-form" aria-label="Put on hold" onSubmit={handler(submit)}>
      <ErrorMessage error={reasons.error} />
      <label>
        Reason
        <select required value={reasonCode} onChange={(event) => setReasonCode(event.currentTarget.value)}>
          <option value="">Choose a reason…</option>
          {reasons.data?.map((entry) => (
            <option key={entry.code} value={entry.code}>
              {entry.reason}
            </option>
          ))}
        </select>
      </label>
      {reason && (
        <p class="hint">
          {reason.waiting_on ? `Waits on ${WAITING_ON_LABEL[reason.waiting_on]}. ` : ''}
          {reason.answer}
        </p>
      )}
      {asksWaitingOn && (
        <label>
          Waiting on
          <select required value={waitingOn} onChange={(event) => setWaitingOn(event.currentTarget.value as WaitingOn | '')}>
            <option value="">Choose…</option>
            <option value="partner">The partner</option>
            <option value="pharmacy">The pharmacy</option>
          </select>
        </label>
      )}
      <label>
        Message to the partner
        <textarea
          name="message"
          required
          maxLength={MESSAGE_MAX}
          rows={3}
          value={message}
          onInput={(event) => setMessage(event.currentTarget.value)}
        />
      </label>
      <ErrorMessage error={error} />
      <div class="actions">
        <button type="submit" disabled={busy || !reason}>
          Put on hold
        </button>
        <button type="button" class="secondary" disabled={busy} onClick={() => setOpen(false)}>
          Keep working
        </button>
      </div>
    </form>
  );
}

/** Resume: back to the status the order was held from, with an optional message to the partner. */
function ResumeForm({ orderId, onResumed }: { orderId: string; onResumed: (answer: OrderView) => void }) {
  const [message, setMessage] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const text = message.trim();
      const answer = await api('POST', '/api/admin/medication-requests/{id}/resume', {
        path: { id: orderId },
        body: text === '' ? {} : { message: text },
      });
      setMessage('');
      onResumed(answer);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="hold-form" aria-label="Resume" onSubmit={handler(submit)}>
      <PartnerMessage value={message} onInput={setMessage} />
      <ErrorMessage error={error} />
      <div class="actions">
        <button type="submit" disabled={busy}>
          Resume
        </button>
      </div>
    </form>
  );
}

const KIND_LABEL: Record<HoldStep['kind'], string> = {
  hold: 'Put on hold',
  answer: 'Partner answered',
  resolve: 'Hold resolved',
  resume: 'Resumed',
};

/** The order's holds, oldest first: each hold, the partner's answers and each resume, with who and when. */
export function HoldHistory({ steps }: { steps: HoldStep[] }) {
  const reasons = useHoldReasons();
  if (steps.length === 0) return null;
  const reasonOf = (code: string | null) =>
    code === null ? <span class="muted">—</span> : (reasons.data?.find((entry) => entry.code === code)?.reason ?? code);
  return (
    <section aria-labelledby="hold-history">
      <h2 id="hold-history">Hold history</h2>
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">What</th>
              <th scope="col">Reason</th>
              <th scope="col">Waiting on</th>
              <th scope="col">Message</th>
              <th scope="col">When</th>
              <th scope="col">By</th>
            </tr>
          </thead>
          <tbody>
            {steps.map((step) => (
              <tr key={`${step.kind}-${step.at}-${step.hold_id ?? ''}`}>
                <td>{KIND_LABEL[step.kind]}</td>
                <td>{reasonOf(step.reason_code)}</td>
                <td>{step.waiting_on ? WAITING_ON_LABEL[step.waiting_on] : <span class="muted">—</span>}</td>
                <td class="hold-message">
                  {step.message ?? <span class="muted">—</span>}
                  {step.override_reason && (
                    <p>
                      <strong>Override:</strong> {step.override_reason}
                    </p>
                  )}
                </td>
                <td>
                  <Time iso={step.at} />
                </td>
                <td>
                  <ActorName step={step} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

/** The optional message to the partner that resolving a hold or resuming the order sends with it. */
function PartnerMessage({ value, onInput }: { value: string; onInput: (value: string) => void }) {
  return (
    <label>
      Message to the partner <span class="muted">(optional)</span>
      <textarea
        name="message"
        maxLength={MESSAGE_MAX}
        rows={2}
        value={value}
        onInput={(event) => onInput(event.currentTarget.value)}
      />
    </label>
  );
}
