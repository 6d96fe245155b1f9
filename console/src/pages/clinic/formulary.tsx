import { useRef, useState } from 'preact/hooks';
import { api } from '../../api';
import { useAction } from '../../components/action';
import { useClientPages } from '../../components/client-pages';
import { ConfirmButton } from '../../components/confirm';
import { handler } from '../../components/events';
import { Empty, ErrorMessage, Loading, Notice, Time } from '../../components/feedback';
import { Pager } from '../../components/pager';
import { useResource } from '../../components/use-resource';
import type { Medication } from './types';

/**
 * A clinic's formulary: the medications its orders may name. Admins and pharmacists add and remove
 * them. The API answers the whole formulary (by name); the page filters and pages it.
 */
export function Formulary({ clinicId }: { clinicId: string }) {
  const medications = useResource(`formulary ${clinicId}`, () =>
    api('GET', '/api/admin/clinics/{clinicId}/medications', { path: { clinicId } }),
  );
  const [search, setSearch] = useState('');
  const [notice, setNotice] = useState('');
  const remove = useAction();
  const needle = search.trim().toLowerCase();
  const shown = medications.data?.medications.filter((m) => !needle || m.name.toLowerCase().includes(needle)) ?? null;
  const { pager, rows, nextCursor } = useClientPages(shown, needle);

  const removeMedication = (medication: Medication) =>
    remove.run(async () => {
      setNotice('');
      await api('DELETE', '/api/admin/clinics/{clinicId}/medications/{medicationId}', {
        path: { clinicId, medicationId: medication.medication_id },
      });
      const rest = (medications.data?.medications ?? []).filter((m) => m.medication_id !== medication.medication_id);
      medications.setData({ medications: rest });
      setNotice(`${medication.name} is removed from the formulary.`);
    });

  return (
    <section aria-labelledby="formulary-heading">
      <h2 id="formulary-heading">Formulary</h2>
      <AddMedicationForm
        clinicId={clinicId}
        onNotice={setNotice}
        onAdded={(medication) => {
          setNotice(`${medication.name} is added to the formulary.`);
          medications.reload();
        }}
      />
      {notice && <Notice>{notice}</Notice>}
      <div class="filters">
        <label>
          Search the formulary
          <input type="search" value={search} onInput={(event) => setSearch(event.currentTarget.value)} />
        </label>
      </div>
      <ErrorMessage error={medications.error} />
      <ErrorMessage error={remove.error} />
      {medications.loading && !medications.data && <Loading what="the formulary" />}
      {shown?.length === 0 && (
        <Empty>{needle ? 'No medication of the formulary has that name.' : 'The formulary is empty: add a medication.'}</Empty>
      )}
      {rows.length > 0 && (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Strength</th>
                <th scope="col">Dosage form</th>
                <th scope="col">Formula</th>
                <th scope="col">Added</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((medication) => (
                <tr key={medication.medication_id}>
                  <td>{medication.name}</td>
                  <td>{medication.strength ?? <span class="muted">—</span>}</td>
                  <td>{medication.dosage_form ?? <span class="muted">—</span>}</td>
                  <td>
                    <FormulaSummary medication={medication} />
                  </td>
                  <td>
                    <Time iso={medication.created_at} />
                  </td>
                  <td>
                    <ConfirmButton
                      label="Remove"
                      question={`Remove ${medication.name}? New orders for it will be refused.`}
                      confirm="Yes, remove"
                      busy={remove.busy}
                      onConfirm={() => removeMedication(medication)}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {shown !== null && shown.length > 0 && <Pager pager={pager} nextCursor={nextCursor} />}
    </section>
  );
}

/** The formula in a line (its active ingredients, storage, schedule), or "no formula" for an entry made without one. */
function FormulaSummary({ medication }: { medication: Medication }) {
  if (medication.ingredients === null) return <span class="tag mark-no-formula">no formula</span>;
  const actives = medication.ingredients.filter((ingredient) => ingredient.active);
  return (
    <>
      {actives.map((ingredient) => `${ingredient.name} ${ingredient.strength} ${ingredient.unit}`).join(', ')}
      <br />
      <span class="muted">
        {[
          medication.preparation === 'sterile' ? 'sterile' : 'non-sterile',
          medication.storage,
          medication.controlled_schedule ? `C-${medication.controlled_schedule}` : null,
        ]
          .filter(Boolean)
          .join(' · ')}
      </span>
    </>
  );
}

/** Name, and optionally strength and dosage form; the form empties and waits for the next one. */
function AddMedicationForm({
  clinicId,
  onNotice,
  onAdded,
}: {
  clinicId: string;
  onNotice: (notice: string) => void;
  onAdded: (medication: Medication) => void;
}) {
  const [fields, setFields] = useState({ name: '', strength: '', dosage_form: '' });
  const action = useAction();
  const nameField = useRef<HTMLInputElement>(null);
  const set = (name: keyof typeof fields) => (event: { currentTarget: HTMLInputElement }) =>
    setFields({ ...fields, [name]: event.currentTarget.value });

  const submit = async (event: Event) => {
    event.preventDefault();
    onNotice('');
    await action.run(async () => {
      const body = {
        name: fields.name,
        ...(fields.strength.trim() ? { strength: fields.strength } : {}),
        ...(fields.dosage_form.trim() ? { dosage_form: fields.dosage_form } : {}),
      };
      const medication = await api('POST', '/api/admin/clinics/{clinicId}/medications', { path: { clinicId }, body });
      setFields({ name: '', strength: '', dosage_form: '' });
      onAdded(medication);
      nameField.current?.focus();
    });
  };

  return (
    <form onSubmit={handler(submit)} aria-label="Add medication">
      <div class="inline-fields">
        <label>
          Name
          <input ref={nameField} required maxLength={200} value={fields.name} onInput={set('name')} />
        </label>
        <label>
          Strength (optional)
          <input maxLength={100} placeholder="2.5 mg/mL" value={fields.strength} onInput={set('strength')} />
        </label>
        <label>
          Dosage form (optional)
          <input maxLength={100} placeholder="injectable solution" value={fields.dosage_form} onInput={set('dosage_form')} />
        </label>
        <button type="submit" disabled={action.busy}>
          Add medication
        </button>
      </div>
      <ErrorMessage error={action.error} />
    </form>
  );
}
