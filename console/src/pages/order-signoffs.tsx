import { useState } from 'preact/hooks';
import { api } from '../api';
import { handler } from '../components/events';
import { ErrorMessage, Notice, Time } from '../components/feedback';
import { useSession } from '../session';
import { unfilledItems } from '../../../src/compounding/final-check.js';
import {
  REVIEW_CHECKS,
  SIGNOFF_KINDS,
  signoffRefusal,
  type ReviewCheck,
  type SignoffKind,
} from '../../../src/compounding/signoff.js';
import type { OrderDetail } from './order-shared';

/** A sign-off as GET /api/admin/medication-requests/{id} lists it. */
export type Signoff = OrderDetail['signoffs'][number];

const TITLE: Record<SignoffKind, string> = {
  prescription_review: 'Prescription review',
  final_check: 'Final check',
};

const CHECK_LABEL: Record<ReviewCheck, string> = {
  allergies: 'Allergies',
  duplicate_therapy: 'Duplicate therapy',
  dose: 'Dose',
};

/**
 * The pharmacist's two sign-offs (docs/compounding.md#sign-offs): who signed each, when, and what the
 * review checked; for a pharmacist, the form of each one the order is ready for (the server's own
 * rules): the review with its three checks to tick, the final check once every item is filled (until
 * then its button is disabled and names the items still to fill). A sign-off is the pharmacist's own,
 * signed in as themselves: an admin or a technician sees who signed, and no form.
 */
export function SignoffPanel({ order, onSigned }: { order: OrderDetail; onSigned: (signoff: Signoff) => void }) {
  const session = useSession();
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const signedOf = new Map(order.signoffs.map((s) => [s.kind, s]));
  const pharmacist = session.role === 'pharmacist';

  const signOff = async (kind: SignoffKind) => {
    setBusy(true);
    setError(null);
    setDone(null);
    try {
      const signoff = await api('POST', '/api/admin/medication-requests/{id}/signoffs', {
        path: { id: order.medication_request_id },
        body: kind === 'prescription_review' ? { kind, checked: [...REVIEW_CHECKS] } : { kind },
      });
      onSigned(signoff);
      setDone(`${TITLE[kind]} signed off.`);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  const ready = (kind: SignoffKind) =>
    signoffRefusal(kind, order.status, order.status === 'on_hold' ? heldFrom(order) : null) === null;

  return (
    <section aria-labelledby="signoffs-heading">
      <h2 id="signoffs-heading">Pharmacist sign-offs</h2>
      {done && <Notice>{done}</Notice>}
      <ErrorMessage error={error} />
      <dl class="facts">
        {SIGNOFF_KINDS.map((kind) => {
          const signed = signedOf.get(kind);
          return [
            <dt key={`${kind}-title`}>{TITLE[kind]}</dt>,
            <dd key={`${kind}-value`} data-signoff={kind}>
              {signed ? (
                <SignedOff signoff={signed} />
              ) : pharmacist && ready(kind) ? (
                kind === 'prescription_review' ? (
                  <ReviewForm busy={busy} onSign={() => signOff(kind)} />
                ) : (
                  <FinalCheck order={order} busy={busy} onSign={() => signOff(kind)} />
                )
              ) : (
                <span class="muted">not signed</span>
              )}
            </dd>,
          ];
        })}
      </dl>
      {!pharmacist && order.signoffs.length < SIGNOFF_KINDS.length && (
        <p class="muted">A pharmacist signs off, signed in as themselves.</p>
      )}
    </section>
  );
}

function SignedOff({ signoff }: { signoff: Signoff }) {
  return (
    <>
      Signed by {signoff.pharmacist_name}, <Time iso={signoff.at} />
      {signoff.checked && (
        <>
          <br />
          <span class="muted">Checked: {signoff.checked.map((check) => CHECK_LABEL[check].toLowerCase()).join(', ')}</span>
        </>
      )}
    </>
  );
}

/** The review: each of the three checks ticked, then signed. */
function ReviewForm({ busy, onSign }: { busy: boolean; onSign: () => Promise<void> }) {
  const [ticked, setTicked] = useState<ReadonlySet<ReviewCheck>>(new Set());
  const all = REVIEW_CHECKS.every((check) => ticked.has(check));
  const toggle = (check: ReviewCheck, on: boolean) => {
    const next = new Set(ticked);
    if (on) next.add(check);
    else next.delete(check);
    setTicked(next);
  };
  return (
    <form
      aria-label="Prescription review"
      onSubmit={handler(async (event: Event) => {
        event.preventDefault();
        await onSign();
      })}
    >
      <fieldset>
        <legend>I checked</legend>
        {REVIEW_CHECKS.map((check) => (
          <label key={check} class="check">
            <input type="checkbox" checked={ticked.has(check)} onChange={(event) => toggle(check, event.currentTarget.checked)} />
            {CHECK_LABEL[check]}
          </label>
        ))}
      </fieldset>
      <button type="submit" disabled={busy || !all}>
        Sign off prescription review
      </button>
      {!all && <span class="muted"> Tick each check to sign.</span>}
    </form>
  );
}

/** The final check: signed once every item is filled; before, disabled, naming the items still to fill. */
function FinalCheck({ order, busy, onSign }: { order: OrderDetail; busy: boolean; onSign: () => Promise<void> }) {
  const unfilled = unfilledItems(order.medication_requests).map(({ item }) => item.medication);
  return (
    <>
      <button
        type="button"
        disabled={busy || unfilled.length > 0}
        aria-describedby={unfilled.length > 0 ? 'final-check-waits' : undefined}
        onClick={handler(onSign)}
      >
        Sign off final check
      </button>
      {unfilled.length > 0 && (
        <span id="final-check-waits" class="muted">
          {' '}
          Waits for the fill of: {unfilled.join(', ')}
        </span>
      )}
    </>
  );
}

/** The status a held order returns to: the last hold's `from` in its history. */
function heldFrom(order: OrderDetail): string | null {
  const hold = [...order.status_history].reverse().find((step) => step.to === 'on_hold');
  return hold?.from ?? null;
}
