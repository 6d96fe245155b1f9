import JsBarcode from 'jsbarcode';
import { useEffect, useRef } from 'preact/hooks';
import { calendarDate, quantityText, shortId, type OrderDetail, type OrderItem } from './order-shared';
import { PostalAddress } from './order-items';

const STORAGE_TEXT: Record<string, string> = {
  room: 'Store at room temperature',
  refrigerated: 'Keep refrigerated',
  frozen: 'Keep frozen',
};

/** How an item is stored: as filled, else as its formula says; null when neither says. */
export function storageOf(item: OrderItem): string | null {
  const storage = item.fill?.storage ?? item.formulary_entry?.storage ?? null;
  return storage === null ? null : (STORAGE_TEXT[storage] ?? storage);
}

/** The order id as a Code 128 barcode (JsBarcode draws it into the SVG). */
function Barcode({ value }: { value: string }) {
  const svg = useRef<SVGSVGElement>(null);
  useEffect(() => {
    if (svg.current) {
      JsBarcode(svg.current, value, { format: 'CODE128', width: 1.2, height: 48, margin: 0, displayValue: false });
    }
  }, [value]);
  return <svg ref={svg} class="barcode" role="img" aria-label={`Barcode of order ${value}`} data-barcode={value} />;
}

/** The delivery options the partner asked for, boxed for whoever hands the parcel to the carrier; nothing when none was. */
function DeliveryOptions({ order }: { order: OrderDetail }) {
  const options = [
    order.signature_required ? 'Signature required' : null,
    order.saturday_delivery ? 'Saturday delivery' : null,
  ].filter((option) => option !== null);
  if (options.length === 0) return null;
  return (
    <ul class="delivery-options" aria-label="Delivery options">
      {options.map((option) => (
        <li key={option}>{option}</li>
      ))}
    </ul>
  );
}

/** A line to write on when the label is printed before the fill. */
const Blank = () => <span class="write-in" aria-label="to write in" />;

/**
 * The order's label: the pharmacy (settings), whom it ships to, the order's reference and its id
 * as a barcode, the delivery options (signature required, Saturday delivery), and each item to fill with its quantity, directions, storage, lot and beyond-use
 * date (blank lines until the fill records them). Hidden on screen; the print stylesheet shows it
 * alone (styles.css, "Printing"). No clinic, patient or prescriber id.
 */
export function OrderLabel({ order }: { order: OrderDetail }) {
  const { patient, pharmacy } = order;
  const address = patient.shipping_address;
  return (
    <section class="order-label" aria-labelledby="order-label">
      <header class="label-pharmacy">
        {pharmacy ? (
          <>
            <h1 id="order-label">{pharmacy.name}</h1>
            <PostalAddress address={pharmacy} />
            {pharmacy.phone && <p>{pharmacy.phone}</p>}
          </>
        ) : (
          <h1 id="order-label">Pharmacy name not set (PHARMACY_NAME)</h1>
        )}
      </header>
      <div class="label-reference">
        <p>
          Order <strong>{shortId(order.medication_request_id)}</strong>
        </p>
        <Barcode value={order.medication_request_id} />
        <p class="label-id">{order.medication_request_id}</p>
      </div>
      {order.is_refrigerated && <p class="cold">Refrigerated: keep cold, store in the refrigerator on arrival.</p>}
      <DeliveryOptions order={order} />
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
            <th scope="col">Storage</th>
            <th scope="col">Lot</th>
            <th scope="col">Beyond-use date</th>
          </tr>
        </thead>
        <tbody>
          {order.medication_requests
            .filter((item) => !item.do_not_fill)
            .map((item, index) => {
              const fill = item.fill;
              return (
                <tr key={index}>
                  <td>
                    {item.medication} {item.dose}
                  </td>
                  <td>{quantityText(item)}</td>
                  <td class="prewrap">{item.direction}</td>
                  <td>{storageOf(item) ?? <Blank />}</td>
                  <td>{fill ? fill.lot_number : <Blank />}</td>
                  <td>{fill?.beyond_use_date ? calendarDate(fill.beyond_use_date) : <Blank />}</td>
                </tr>
              );
            })}
        </tbody>
      </table>
      <p class="muted">Ordered through {order.clinic_name}</p>
    </section>
  );
}
