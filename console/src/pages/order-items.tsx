import { ItemFill } from './order-fill';
import { quantityText, type OrderDetail, type OrderItem } from './order-shared';

type FormularyEntry = NonNullable<OrderItem['formulary_entry']>;

const PREPARATION: Record<string, string> = { non_sterile: 'Non-sterile', sterile: 'Sterile' };
const STORAGE: Record<string, string> = { room: 'Room temperature', refrigerated: 'Refrigerated', frozen: 'Frozen' };
const BUD_CATEGORY: Record<string, string> = {
  solid: 'solid',
  non_aqueous: 'non-aqueous',
  aqueous_preserved: 'aqueous, preserved',
  aqueous_non_preserved: 'aqueous, non-preserved',
};

/**
 * The formula of the item's formulary entry, beside the item: what goes into it, how it is made,
 * stored and scheduled. An entry without a formula says so; an item matched to no entry too.
 */
function Formula({ entry }: { entry: FormularyEntry | null }) {
  if (entry === null) return <p class="muted formula">Not in the clinic&rsquo;s formulary: no formula.</p>;
  if (entry.ingredients === null) {
    return (
      <p class="formula">
        <span class="tag mark-no-formula">no formula</span>{' '}
        <span class="muted">The formulary entry has no formula: fill it as ordered.</span>
      </p>
    );
  }
  return (
    <div class="formula" aria-label={`Formula of ${entry.name}`} role="group">
      <h4>Formula</h4>
      <ul class="plain ingredients">
        {entry.ingredients.map((ingredient, index) => (
          <li key={index}>
            {ingredient.name} {ingredient.strength} {ingredient.unit}
            {ingredient.active ? <span class="tag">active</span> : <span class="muted"> (inactive)</span>}
          </li>
        ))}
      </ul>
      <dl class="facts">
        <dt>Preparation</dt>
        <dd>
          {entry.preparation ? PREPARATION[entry.preparation] : '—'}
          {entry.bud_category && <span class="muted"> ({BUD_CATEGORY[entry.bud_category]})</span>}
        </dd>
        <dt>Storage</dt>
        <dd>{entry.storage ? STORAGE[entry.storage] : '—'}</dd>
        {entry.formula_version !== null && (
          <>
            <dt>Version</dt>
            <dd>{entry.formula_version} (the formula now; a fill names the version it was made from)</dd>
          </>
        )}
        <dt>Schedule</dt>
        <dd>{entry.controlled_schedule ? `C-${entry.controlled_schedule} (controlled)` : 'Not controlled'}</dd>
        {entry.beyond_use_days !== null && (
          <>
            <dt>Beyond use</dt>
            <dd>{entry.beyond_use_days} days</dd>
          </>
        )}
      </dl>
    </div>
  );
}

/** The formulary's strength and form next to the ordered dose, so a mismatch shows at a glance. */
function FormularyStrength({ entry }: { entry: FormularyEntry | null }) {
  if (entry === null) return null;
  const parts = [entry.strength, entry.dosage_form].filter(Boolean).join(', ');
  return <span class="formulary-strength muted">Formulary: {parts === '' ? 'no strength given' : parts}</span>;
}

/** Each item of an order in full: what the pharmacist compounds and checks, one block per item, with its fill. */
export function OrderItems({ order, onFilled }: { order: OrderDetail; onFilled: () => void }) {
  const items = order.medication_requests;
  return (
    <section aria-labelledby="items">
      <h2 id="items">Items</h2>
      <ol class="items">
        {items.map((item) => (
          <li key={item.id} class="item">
            <h3>
              {item.medication} {item.dose}
              {item.do_not_fill && <span class="flag">Do not fill</span>}
              {item.patient_contact_requested && <span class="flag">Contact the patient</span>}
            </h3>
            <p class="dose-line">
              Ordered dose: <strong>{item.dose}</strong> <FormularyStrength entry={item.formulary_entry} />
            </p>
            <div class="item-columns">
              <dl class="facts">
                <dt>Quantity</dt>
                <dd>{quantityText(item)}</dd>
                <dt>Directions</dt>
                <dd class="prewrap">{item.direction}</dd>
                <dt>Days’ supply</dt>
                <dd>{item.days_supply ?? <span class="muted">not given</span>}</dd>
                <dt>Refills</dt>
                <dd>
                  {item.do_not_refill ? 'Do not refill' : item.refills}{' '}
                  <span class="muted">({item.refills_remaining} left in the chain)</span>
                </dd>
                <dt>Compounding reason</dt>
                <dd class="prewrap">
                  {item.reason_for_compounding ?? <span class="muted">not given</span>}
                  {item.reason_for_compounding_additional_context && (
                    <>
                      <br />
                      {item.reason_for_compounding_additional_context}
                    </>
                  )}
                </dd>
                {item.flavor && (
                  <>
                    <dt>Flavor</dt>
                    <dd>{item.flavor}</dd>
                  </>
                )}
                <dt>Notes</dt>
                <dd class="prewrap">{item.notes ?? <span class="muted">none</span>}</dd>
              </dl>
              <Formula entry={item.formulary_entry} />
            </div>
            <ItemFill order={order} item={item} onFilled={onFilled} />
          </li>
        ))}
      </ol>
    </section>
  );
}

/** A shipping address as a label shows it: line 1, line 2 when there is one, city, state and ZIP. */
export function PostalAddress({ address }: { address: NonNullable<OrderDetail['patient']['shipping_address']> }) {
  return (
    <address>
      {address.address_line_1}
      <br />
      {address.address_line_2 && (
        <>
          {address.address_line_2}
          <br />
        </>
      )}
      {address.city}, {address.state} {address.postal_code}
    </address>
  );
}
