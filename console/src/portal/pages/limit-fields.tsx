/** Limits left empty take the server's defaults. */
export function limitsBody(maxInFlight: string, maxPerSecond: string) {
  return {
    ...(maxInFlight ? { max_in_flight: Number(maxInFlight) } : {}),
    ...(maxPerSecond ? { max_per_second: Number(maxPerSecond) } : {}),
  };
}

/** The endpoint's limits: attempts at once, attempts started per second (empty: the default, or none). */
export function LimitFields({
  maxInFlight,
  maxPerSecond,
  onMaxInFlight,
  onMaxPerSecond,
}: {
  maxInFlight: string;
  maxPerSecond: string;
  onMaxInFlight: (value: string) => void;
  onMaxPerSecond: (value: string) => void;
}) {
  return (
    <div class="inline-fields">
      <label>
        Attempts at once
        <input type="number" min={1} step={1} value={maxInFlight} onInput={(event) => onMaxInFlight(event.currentTarget.value)} />
      </label>
      <label>
        Attempts per second
        <input
          type="number"
          min={1}
          step={1}
          value={maxPerSecond}
          onInput={(event) => onMaxPerSecond(event.currentTarget.value)}
        />
      </label>
    </div>
  );
}
