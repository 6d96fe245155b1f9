import { useRoute } from 'preact-iso';
import { api } from '../api';
import { ErrorMessage, Loading, Time } from '../components/feedback';
import { useResource } from '../components/use-resource';
import { useSession } from '../session';
import { statusWord } from '../components/labels';
import { StatusPanel } from './order-actions';
import { HoldHistory, HoldPanel } from './order-hold';
import { OrderItems, PostalAddress } from './order-items';
import { OrderLabel } from './order-label';
import {
  ActorName,
  calendarDate,
  dollars,
  hasNewFill,
  StatusBadge,
  withNewState,
  type OrderDetail,
  type OrderView,
} from './order-shared';
import { ShipmentsPanel } from './order-shipments';
import { SignoffPanel, type Signoff } from './order-signoffs';
import { PatientAllergies } from './order-allergies';

/**
 * One order, with everything a pharmacist checks before compounding: the patient (date of birth,
 * phone, address), the prescriber (NPI, veterinarian or not), each item in full, refrigeration and
 * shipment group; each item beside its formula; then shipping (delivery options, and a flag when a
 * refrigerated order is on a service not marked cold-chain eligible), tracking, history (with a
 * cancellation's reason) and refill chain, the status changes the lifecycle allows, and the label to
 * print (reading the order is audited by the API).
 */
export function OrderPage() {
  const { params } = useRoute();
  const id = params.id ?? '';
  const order = useResource(id, () => api('GET', '/api/admin/medication-requests/{id}', { path: { id } }));
  // The catalogue says whether the order's service is cold-chain eligible (docs/shipping.md#cold-chain).
  const catalogue = useResource('carriers', () => api('GET', '/api/admin/carriers'));
  const session = useSession();
  // Reads the order again without the loading state (a fill recorded, or made on shipping in development).
  const refresh = () => {
    void api('GET', '/api/admin/medication-requests/{id}', { path: { id } }).then(order.setData, () => undefined);
  };

  return (
    <>
      <div class="screen-only">
        <p>
          <a href="/console/orders">← Orders</a>
        </p>
        <h1>
          Order <code>{id}</code>
        </h1>
        <ErrorMessage error={order.error} />
        {order.loading ? (
          <Loading what="the order" />
        ) : (
          order.data && (
            <OrderBody
              order={order.data}
              coldChainEligible={coldChainEligibility(order.data, catalogue.data?.carriers)}
              onChanged={(answer, reason) => {
                if (!order.data) return;
                order.setData(withNewState(order.data, answer, session, reason ?? null));
                // A fill made on shipping, or a hold resolved by an override (its reason is the pharmacy's only).
                if (hasNewFill(order.data, answer) || answer.hold_history.some((step) => step.resolution === 'override'))
                  refresh();
              }}
              onFilled={refresh}
              onShipmentsChanged={refresh}
              onSigned={(signoff) => {
                if (order.data) order.setData({ ...order.data, signoffs: [...order.data.signoffs, signoff] });
              }}
            />
          )
        )}
      </div>
      {order.data && <OrderLabel order={order.data} />}
    </>
  );
}

const fullName = (...parts: (string | null)[]): string => parts.filter(Boolean).join(' ');

type Catalogue = { id: string; services: { id: string; cold_chain_eligible: boolean }[] }[];

/** Whether the order's service is cold-chain eligible now; null until the catalogue is read (or without the service). */
function coldChainEligibility(order: OrderDetail, carriers: Catalogue | undefined): boolean | null {
  const service = carriers
    ?.find((carrier) => carrier.id === order.shipping.carrier_id)
    ?.services.find((candidate) => candidate.id === order.shipping.service_id);
  return service ? service.cold_chain_eligible : null;
}

const yesNo = (value: boolean) => (value ? <strong>Yes</strong> : 'No');

function OrderBody({
  order,
  coldChainEligible,
  onChanged,
  onFilled,
  onShipmentsChanged,
  onSigned,
}: {
  order: OrderDetail;
  coldChainEligible: boolean | null;
  onChanged: (answer: OrderView, cancelReason?: string) => void;
  onFilled: () => void;
  onShipmentsChanged: () => void;
  onSigned: (signoff: Signoff) => void;
}) {
  const { patient, practitioner, shipping } = order;
  const address = patient.shipping_address;
  return (
    <>
      <StatusPanel order={order} onChanged={onChanged} />
      <HoldPanel order={order} onChanged={onChanged} />
      <SignoffPanel order={order} onSigned={onSigned} />
      <p>
        <button type="button" class="secondary" onClick={() => window.print()}>
          Print label
        </button>
      </p>

      <div class="columns">
        <section aria-labelledby="patient">
          <h2 id="patient">Patient</h2>
          <p class="patient-name">{fullName(patient.first_name, patient.middle_name, patient.last_name)}</p>
          <dl class="facts">
            <dt>Date of birth</dt>
            <dd>{calendarDate(patient.dob)}</dd>
            <dt>Sex</dt>
            <dd>{patient.gender}</dd>
            <dt>Species</dt>
            <dd>{patient.species}</dd>
            <dt>Phone</dt>
            <dd>{patient.phone ?? <span class="muted">none on file</span>}</dd>
            <dt>Ship to</dt>
            <dd>{address ? <PostalAddress address={address} /> : <span class="muted">No shipping address on file.</span>}</dd>
          </dl>
        </section>
        <section aria-labelledby="prescriber">
          <h2 id="prescriber">Prescriber</h2>
          <p class="patient-name">{fullName(practitioner.first_name, practitioner.last_name)}</p>
          <dl class="facts">
            <dt>NPI</dt>
            <dd>
              <code>{practitioner.npi}</code>
            </dd>
            <dt>Veterinarian</dt>
            <dd>{practitioner.is_veterinarian ? 'Yes' : 'No'}</dd>
            <dt>Phone</dt>
            <dd>{practitioner.phone ?? <span class="muted">none on file</span>}</dd>
            <dt>Clinic</dt>
            <dd>
              <a href={`/console/clinics/${order.clinic_id}`}>{order.clinic_name}</a>
            </dd>
          </dl>
        </section>
        <section aria-labelledby="shipping">
          <h2 id="shipping">Shipping</h2>
          <dl class="facts">
            <dt>Refrigerated</dt>
            <dd>{order.is_refrigerated ? <strong>Yes: keep cold</strong> : 'No'}</dd>
            <dt>Shipment group</dt>
            <dd>{order.shipment_group_id ? <code>{order.shipment_group_id}</code> : <span class="muted">none</span>}</dd>
            <dt>Carrier</dt>
            <dd>{shipping.carrier_name}</dd>
            <dt>Service</dt>
            <dd>
              {shipping.service_name}
              {order.is_refrigerated && coldChainEligible === false && (
                <span class="flag" role="note">
                  Refrigerated on a service not marked cold-chain eligible
                </span>
              )}
            </dd>
            <dt>Signature required</dt>
            <dd>{yesNo(order.signature_required)}</dd>
            <dt>Saturday delivery</dt>
            <dd>{yesNo(order.saturday_delivery)}</dd>
            <dt>Cost</dt>
            <dd>
              {shipping.is_free_shipment ? `Free (list price ${dollars(shipping.original_cost)})` : dollars(shipping.total_cost)}
            </dd>
            <dt>Tracking number</dt>
            <dd>{order.tracking_number ? <code>{order.tracking_number}</code> : <span class="muted">—</span>}</dd>
          </dl>
        </section>
      </div>

      <ShipmentsPanel order={order} onChanged={onShipmentsChanged} />

      <PatientAllergies patient={order.patient} />
      <OrderItems order={order} onFilled={onFilled} />

      <h2>Status history</h2>
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">From</th>
              <th scope="col">To</th>
              <th scope="col">When</th>
              <th scope="col">By</th>
              <th scope="col">Reason</th>
            </tr>
          </thead>
          <tbody>
            {order.status_history.map((step) => (
              <tr key={`${step.to}-${step.at}`}>
                <td>{step.from ? statusWord(step.from) : <span class="muted">created</span>}</td>
                <td>{statusWord(step.to)}</td>
                <td>
                  <Time iso={step.at} />
                </td>
                <td>
                  <ActorName step={step} />
                </td>
                <td class="prewrap">{step.reason ?? <span class="muted">—</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>

      <HoldHistory steps={order.hold_history} />

      <RefillChain order={order} />
    </>
  );
}

/** The order's refill chain: its first order and every refill, oldest first. */
function RefillChain({ order }: { order: OrderDetail }) {
  return (
    <section aria-labelledby="refill-chain">
      <h2 id="refill-chain">Refill chain</h2>
      {order.refill_chain.length <= 1 ? (
        <p class="muted">This order has not been refilled, and is not a refill.</p>
      ) : (
        <ol class="chain">
          {order.refill_chain.map((entry) => {
            const self = entry.medication_request_id === order.medication_request_id;
            return (
              <li key={entry.medication_request_id}>
                {self ? (
                  <span aria-current="page">
                    <code>{entry.medication_request_id}</code> (this order)
                  </span>
                ) : (
                  <a href={`/console/orders/${entry.medication_request_id}`}>
                    <code>{entry.medication_request_id}</code>
                  </a>
                )}{' '}
                <StatusBadge status={entry.status} />{' '}
                <span class="muted">{entry.refill_of ? 'refill' : 'first order'}, created</span> <Time iso={entry.created_at} />
              </li>
            );
          })}
        </ol>
      )}
    </section>
  );
}
