import { api } from '../api';
import type { OperatorData } from '../api-types';
import { useResource } from './use-resource';

/** A clinic as the console's filters and lists need it. */
export type ClinicSummary = Pick<OperatorData<'listOperatorClinics'>['clinics'][number], 'clinic_id' | 'name'>;

/**
 * Every clinic (the operator API lists them whole): the options of a clinic filter, and each
 * clinic's name by its id for lists that carry only the id. `error` is for ErrorMessage; a page
 * still works without the names (it shows ids).
 */
export function useClinics() {
  const { data, error } = useResource('clinics', () => api('GET', '/api/admin/clinics'));
  const clinics = data?.clinics ?? [];
  return { clinics, names: new Map(clinics.map((clinic) => [clinic.clinic_id, clinic.name])), error };
}

export type ClinicDirectory = ReturnType<typeof useClinics>;

/** A select labelled Clinic: every clinic, or "All clinics" (the empty value). */
export function ClinicSelect({
  clinics,
  value,
  onChange,
}: {
  clinics: readonly ClinicSummary[];
  value: string;
  onChange: (clinicId: string) => void;
}) {
  const known = value === '' || clinics.some((clinic) => clinic.clinic_id === value);
  return (
    <label>
      Clinic
      <select value={value} onChange={(event) => onChange(event.currentTarget.value)}>
        <option value="">All clinics</option>
        {/* A clinic from a link that the list does not (yet) hold: kept, by its id. */}
        {!known && <option value={value}>{value}</option>}
        {clinics.map((clinic) => (
          <option key={clinic.clinic_id} value={clinic.clinic_id}>
            {clinic.name}
          </option>
        ))}
      </select>
    </label>
  );
}

/** A clinic named by its id: its name linking to its page, or the id when the name is unknown. */
export function ClinicName({ id, names }: { id: string | null; names: ReadonlyMap<string, string> }) {
  if (id === null) return <span class="muted">—</span>;
  return <a href={`/console/clinics/${id}`}>{names.get(id) ?? <code>{id}</code>}</a>;
}
