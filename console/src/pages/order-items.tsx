import { ItemFill } from './order-fill';
import type { OrderDetail } from './order-shared';

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
              {!item.formula && <span class="flag">No formula</span>}
            </h3>
            <dl class="facts">
              <dt>Quantity</dt>
              <dd>{item.quantity}</dd>
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
            <ItemFill order={order} item={item} onFilled={onFilled} />
          </li>
        ))}
      </ol>
    </section>
  );
}

/**
 * The packing slip: what goes in the box, and only that (the patient's name and address, each item
 * with its quantity and directions, the refrigeration notice). Hidden on screen; the print
 * stylesheet shows it alone (styles.css, "Printing"). No internal id is printed.
 */
export function PackingSlip({ order }: { order: OrderDetail }) {
  const { patient } = order;
  const address = patient.shipping_address;
  return (
    <section class="packing-slip" aria-labelledby="packing-slip">
      <h1 id="packing-slip">Packing slip</h1>
      {order.is_refrigerated && <p class="cold">Refrigerated: keep cold, store in the refrigerator on arrival.</p>}
      <h2>Ship to</h2>
      <p class="patient-name">{[patient.first_name, patient.middle_name, patient.last_name].filter(Boolean).join(' ')}</p>
      {address && <PostalAddress address={address} />}
      <h2>In this box</h2>
      <table>
        <thead>
          <tr>
            <th scope="col">Medication</th>
            <th scope="col">Quantity</th>
            <th scope="col">Directions</th>
          </tr>
        </thead>
        <tbody>
          {order.medication_requests
            .filter((item) => !item.do_not_fill)
            .map((item, index) => (
              <tr key={index}>
                <td>
                  {item.medication} {item.dose}
                </td>
                <td>{item.quantity}</td>
                <td class="prewrap">{item.direction}</td>
              </tr>
            ))}
        </tbody>
      </table>
      <p class="muted">Ordered through {order.clinic_name}</p>
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
