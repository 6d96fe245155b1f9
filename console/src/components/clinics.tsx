import { api } from '../api';
import type { OperatorData } from '../api-types';
import { FilterSelect } from './filter-select';
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
  return (
    <FilterSelect
      label="Clinic"
      all="All clinics"
      value={value}
      options={clinics.map((clinic) => ({ value: clinic.clinic_id, label: clinic.name }))}
      keepUnknown
      onChange={onChange}
    />
  );
}

/** A clinic named by its id: its name linking to its page, or the id when the name is unknown. */
export function ClinicName({ id, names }: { id: string | null; names: ReadonlyMap<string, string> }) {
  if (id === null) return <span class="muted">—</span>;
  return <a href={`/console/clinics/${id}`}>{names.get(id) ?? <code>{id}</code>}</a>;
}
