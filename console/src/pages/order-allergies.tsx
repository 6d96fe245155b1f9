import type { OrderDetail } from './order-shared';

type Patient = OrderDetail['patient'];

/**
 * The patient's allergies beside the order's items (issue 30, item 6), as the record holds them now:
 * each substance with its reaction and severity, "No known allergies", or "Not recorded" when the
 * clinic never gave them (unknown, which is not "none"). An order held for an allergy or a
 * duplicate names the conflict in its hold (order-hold.tsx); this is what it was compared with.
 */
export function PatientAllergies({ patient }: { patient: Patient }) {
  const { allergies } = patient;
  return (
    <section aria-labelledby="allergies" class="allergies">
      <h2 id="allergies">Allergies</h2>
      {allergies === null ? (
        <p class="muted">Not recorded</p>
      ) : allergies.length === 0 ? (
        <p>{patient.no_known_allergies ? 'No known allergies' : <span class="muted">None recorded</span>}</p>
      ) : (
        <ul>
          {allergies.map((allergy, index) => (
            <li key={index}>
              <strong>{allergy.substance}</strong>
              {allergy.reaction && <>: {allergy.reaction}</>}
              {allergy.severity && <span class={`flag severity-${allergy.severity}`}>{allergy.severity}</span>}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
