/** A choice of a filter select: its value, and the text shown when that differs. */
export type FilterOption = string | { value: string; label: string };

/**
 * A filter's select, labelled `label`: "`all`" (the empty value: no filter) then `options`. With
 * `keepUnknown`, a value from a link that the options do not (yet) hold is kept, shown by itself.
 */
export function FilterSelect({
  label,
  all,
  value,
  options,
  keepUnknown = false,
  onChange,
}: {
  label: string;
  all: string;
  value: string;
  options: readonly FilterOption[] | undefined;
  keepUnknown?: boolean;
  onChange: (value: string) => void;
}) {
  const choices = (options ?? []).map((option) => (typeof option === 'string' ? { value: option, label: option } : option));
  const unknown = keepUnknown && value !== '' && !choices.some((choice) => choice.value === value);
  return (
    <label>
      {label}
      <select value={value} onChange={(event) => onChange(event.currentTarget.value)}>
        <option value="">{all}</option>
        {unknown && <option value={value}>{value}</option>}
        {choices.map((choice) => (
          <option key={choice.value} value={choice.value}>
            {choice.label}
          </option>
        ))}
      </select>
    </label>
  );
}
