import { useState } from 'preact/hooks';
import { api } from '../api';
import { handler } from '../components/events';
import { ErrorMessage, Notice, Time } from '../components/feedback';
import { useSession } from '../session';
import { REVIEW_CHECKS, SIGNOFF_KINDS, signoffRefusal, type SignoffKind } from '../../../src/compounding/signoff.js';
import type { OrderDetail } from './order-shared';

/** A sign-off as GET /api/admin/medication-requests/{id} lists it. */
export type Signoff = OrderDetail['signoffs'][number];

const TITLE: Record<SignoffKind, string> = {
  prescription_review: 'Prescription review',
  final_check: 'Final check',
};

/**
 * The pharmacist's two sign-offs (docs/compounding.md#sign-offs): who signed each and when, and for
 * a pharmacist a button for each one the order is ready for (the server's own rule). An admin signs
 * through the API naming a pharmacist, not here: a sign-off is the pharmacist's own.
 */
export function SignoffPanel({ order, onSigned }: { order: OrderDetail; onSigned: (signoff: Signoff) => void }) {
  const session = useSession();
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const signedOf = new Map(order.signoffs.map((s) => [s.kind, s]));

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

  return (
    <section aria-labelledby="signoffs-heading">
      <h2 id="signoffs-heading">Pharmacist sign-offs</h2>
      {done && <Notice>{done}</Notice>}
      <ErrorMessage error={error} />
      <dl class="facts">
        {SIGNOFF_KINDS.map((kind) => {
          const signed = signedOf.get(kind);
          const ready = signoffRefusal(kind, order.status, order.status === 'on_hold' ? heldFrom(order) : null) === null;
          return [
            <dt key={`${kind}-title`}>{TITLE[kind]}</dt>,
            <dd key={`${kind}-value`} data-signoff={kind}>
              {signed ? (
                <>
                  Signed by {signed.pharmacist_name}, <Time iso={signed.at} />
                </>
              ) : session.role === 'pharmacist' && ready ? (
                <button type="button" disabled={busy} onClick={handler(() => signOff(kind))}>
                  Sign off {TITLE[kind].toLowerCase()}
                </button>
              ) : (
                <span class="muted">not signed</span>
              )}
            </dd>,
          ];
        })}
      </dl>
    </section>
  );
}

/** The status a held order returns to: the last hold's `from` in its history. */
function heldFrom(order: OrderDetail): string | null {
  const hold = [...order.status_history].reverse().find((step) => step.to === 'on_hold');
  return hold?.from ?? null;
}
