import { useState } from 'preact/hooks';
import { handler } from './events';

/**
 * Rolls a credential (Roll), asking first how long the old one keeps working beside its successor
 * (`overlaps`: the choices, in the unit the API takes), so that every server can move to the new
 * one before the old is refused. `name` names the credential in the group's label.
 */
export function RollButton({
  name,
  overlaps,
  initial,
  busy,
  onRoll,
}: {
  name: string;
  overlaps: readonly { value: number; label: string }[];
  initial: number;
  busy: boolean;
  onRoll: (value: number) => Promise<unknown>;
}) {
  const [asking, setAsking] = useState(false);
  const [value, setValue] = useState<number>(initial);
  if (!asking)
    return (
      <button type="button" class="secondary" disabled={busy} onClick={() => setAsking(true)}>
        Roll
      </button>
    );
  return (
    <span class="confirm-inline" role="group" aria-label={`Roll ${name}`}>
      <label>
        Old key keeps working
        <select value={value} onChange={(event) => setValue(Number(event.currentTarget.value))}>
          {overlaps.map((overlap) => (
            <option key={overlap.value} value={overlap.value}>
              {overlap.label}
            </option>
          ))}
        </select>
      </label>
      <button
        type="button"
        disabled={busy}
        onClick={handler(async () => {
          await onRoll(value);
          setAsking(false);
        })}
      >
        Roll key
      </button>
      <button type="button" class="secondary" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}
