import { useEffect, useRef, useState } from 'preact/hooks';
import { US_STATES } from '../../../../src/reference/us-states';
import { useAction } from '../../components/action';
import { handler } from '../../components/events';
import { ErrorMessage } from '../../components/feedback';
import type { OperatorBody } from '../../api-types';
import type { CatalogueService } from './types';

/** What the form sends: POST …/services (with `id` when given) or PUT …/services/{id} (without). */
export type ServiceInput = OperatorBody<'createOperatorCarrierService'>;

interface StatePriceRow {
  key: number;
  state: string;
  price: string;
}

const STATE_CODES = Object.keys(US_STATES);
let nextRowKey = 0;
const row = (state: string, price = ''): StatePriceRow => ({ key: nextRowKey++, state, price });

/**
 * A shipping service's name, base price, prices per state (which override the base price for
 * patients in those states) and cold-chain eligibility. Adds a service when `service` is absent (with an optional id, else
 * derived from the name), edits it otherwise. `save` throws ApiError, which the form shows.
 */
export function ServiceForm({
  service,
  save,
  onCancel,
}: {
  service?: CatalogueService;
  save: (input: ServiceInput) => Promise<void>;
  onCancel: () => void;
}) {
  const [name, setName] = useState(service?.name ?? '');
  const [id, setId] = useState('');
  const [price, setPrice] = useState(service ? String(service.price) : '');
  const [coldChain, setColdChain] = useState(service?.cold_chain_eligible ?? false);
  const [rows, setRows] = useState(() =>
    Object.entries(service?.state_prices ?? {}).map(([state, amount]) => row(state, String(amount))),
  );
  const [problem, setProblem] = useState('');
  const action = useAction();
  const focusRow = useRef<number | null>(null);
  const list = useRef<HTMLUListElement>(null);

  useEffect(() => {
    if (focusRow.current === null) return;
    list.current?.querySelector<HTMLSelectElement>(`[data-row="${focusRow.current}"] select`)?.focus();
    focusRow.current = null;
  }, [rows]);

  const change = (key: number, changes: Partial<StatePriceRow>) => {
    setProblem('');
    setRows(rows.map((r) => (r.key === key ? { ...r, ...changes } : r)));
  };
  const addRow = () => {
    const taken = new Set(rows.map((r) => r.state));
    const added = row(STATE_CODES.find((code) => !taken.has(code)) ?? '');
    focusRow.current = added.key;
    setRows([...rows, added]);
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    const states = rows.map((r) => r.state);
    const twice = states.find((state, index) => states.indexOf(state) !== index);
    if (twice) {
      setProblem(`${twice} has two prices: keep one.`);
      return;
    }
    setProblem('');
    const input: ServiceInput = {
      name,
      price: Number(price),
      state_prices: Object.fromEntries(rows.map((r) => [r.state, Number(r.price)])),
      cold_chain_eligible: coldChain,
      ...(id.trim() ? { id: id.trim() } : {}),
    };
    await action.run(() => save(input));
  };

  return (
    <form onSubmit={handler(submit)} aria-label={service ? `Edit ${service.name}` : 'Add service'}>
      <div class="inline-fields">
        <label>
          Service name
          <input required maxLength={100} value={name} onInput={(event) => setName(event.currentTarget.value)} />
        </label>
        {!service && (
          <label>
            Service id (optional)
            <input maxLength={100} placeholder="from the name" value={id} onInput={(event) => setId(event.currentTarget.value)} />
          </label>
        )}
        <label>
          Base price (USD)
          <PriceInput value={price} onInput={setPrice} />
        </label>
      </div>
      <label class="check">
        <input type="checkbox" checked={coldChain} onChange={(event) => setColdChain(event.currentTarget.checked)} />
        Cold-chain eligible: this service keeps refrigerated orders cold
      </label>
      <fieldset>
        <legend>Prices by state</legend>
        <p class="hint">A state’s price replaces the base price for patients who live there.</p>
        <ul class="state-prices" ref={list}>
          {rows.map((r) => (
            <li key={r.key} data-row={r.key}>
              <label>
                State
                <select required value={r.state} onChange={(event) => change(r.key, { state: event.currentTarget.value })}>
                  {STATE_CODES.map((code) => (
                    <option key={code} value={code}>
                      {code} · {US_STATES[code]}
                    </option>
                  ))}
                </select>
              </label>
              <label>
                Price in {r.state} (USD)
                <PriceInput value={r.price} onInput={(value) => change(r.key, { price: value })} />
              </label>
              <button type="button" class="secondary" onClick={() => setRows(rows.filter((other) => other.key !== r.key))}>
                Remove {r.state} price
              </button>
            </li>
          ))}
        </ul>
        <button type="button" class="secondary" onClick={addRow}>
          Add state price
        </button>
      </fieldset>
      <div class="actions">
        <button type="submit" disabled={action.busy}>
          {service ? 'Save prices' : 'Save service'}
        </button>
        <button type="button" class="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
      {problem && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
      <ErrorMessage error={action.error} />
    </form>
  );
}

/** Dollars with cents, 0 to 100,000 (the API's bounds). */
function PriceInput({ value, onInput }: { value: string; onInput: (value: string) => void }) {
  return (
    <input
      type="number"
      required
      min="0"
      max="100000"
      step="0.01"
      inputMode="decimal"
      value={value}
      onInput={(event) => onInput(event.currentTarget.value)}
    />
  );
}
