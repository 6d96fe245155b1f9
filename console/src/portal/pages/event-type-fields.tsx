import { EVENT_TYPES } from '../../../../src/events/event-types.js';

/** What an endpoint receives: `null` is every type, including types added later; a list restricts it. */
export type EventTypeChoice = string[] | null;

/** The endpoint's event types as its card shows them. */
export function describeEventTypes(eventTypes: EventTypeChoice): string {
  return eventTypes === null ? 'All events' : eventTypes.join(', ');
}

/**
 * The event types an endpoint receives: "All events" (null, later types too) or the types checked.
 * Unchecking "All events" starts from every current type checked, so nothing is lost by accident.
 */
export function EventTypeFields({ value, onChange }: { value: EventTypeChoice; onChange: (value: EventTypeChoice) => void }) {
  const toggle = (type: string, checked: boolean) => {
    const current = value ?? [];
    const next = checked ? [...current, type] : current.filter((t) => t !== type);
    onChange(EVENT_TYPES.filter((t) => next.includes(t)));
  };
  return (
    <fieldset class="event-types">
      <legend>Event types</legend>
      <label>
        <input
          type="checkbox"
          checked={value === null}
          onChange={(event) => onChange(event.currentTarget.checked ? null : [...EVENT_TYPES])}
        />
        All events, including later ones
      </label>
      {value !== null && (
        <>
          {EVENT_TYPES.map((type) => (
            <label key={type}>
              <input
                type="checkbox"
                checked={value.includes(type)}
                onChange={(event) => toggle(type, event.currentTarget.checked)}
              />
              <code>{type}</code>
            </label>
          ))}
          {value.length === 0 && <p class="muted">Check at least one type, or all events.</p>}
        </>
      )}
    </fieldset>
  );
}
