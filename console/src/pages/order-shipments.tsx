import { useState } from 'preact/hooks';
import { api } from '../api';
import { useAction } from '../components/action';
import { Disclosure } from '../components/disclosure';
import { handler } from '../components/events';
import { Notice } from '../components/feedback';
import { FormActions } from '../components/form-actions';
import {
  SHIPMENT_STATUS_LABEL,
  SHIPMENT_STATUSES,
  ShipmentList,
  TROUBLE,
  type Shipment,
  type ShipmentStatus,
} from '../components/shipments';
import type { TrackingEventBody } from '../components/shipment-types';
import { useResource } from '../components/use-resource';
import { useSession } from '../session';
import { roleMayCall } from '../../../src/staff/operator-roles.js';
import { localNow } from './order-fill';
import type { CatalogueCarrier } from './carrier/types';
import type { OrderDetail } from './order-shared';

/** The routes of the panel's forms, as the server's role table names them (src/staff/operator-roles.ts). */
const ADD_PACKAGE = '/api/admin/medication-requests/:id/shipments';
const ADD_EVENT = '/api/admin/medication-requests/:id/shipments/:shipmentId/events';

/** The longest location and description a tracking event takes (the API refuses longer ones, naming the field). */
const LOCATION_MAX = 200;
const DESCRIPTION_MAX = 500;

/**
 * The order's journey (issue 31; docs/console.md): each package with its carrier and service, its
 * tracking number (a link to the carrier's page), status, estimated delivery and its tracking events,
 * newest first; and, for staff the server lets change orders, **Add package** on a shipped order and
 * **Add tracking event** for each package not yet delivered. A delivery exception puts the order on
 * hold (the hold panel above says so, and this panel points at it). `onChanged`: the page reads the
 * order again (a tracking event may deliver it or put it on hold).
 */
export function ShipmentsPanel({ order, onChanged }: { order: OrderDetail; onChanged: () => void }) {
  const { role } = useSession();
  const catalogue = useResource('carriers', () => api('GET', '/api/admin/carriers'));
  const [done, setDone] = useState<string | null>(null);
  const shipments: readonly Shipment[] = order.shipments;
  const carriers = catalogue.data?.carriers ?? [];
  const carrierName = (id: string) => carriers.find((c) => c.id === id)?.name ?? id;
  const serviceName = (carrierId: string, id: string) =>
    carriers.find((c) => c.id === carrierId)?.services.find((s) => s.id === id)?.name ?? id;
  const heldForDelivery = order.status === 'on_hold' && order.hold?.reason_code === 'delivery_exception';
  const travelling = order.status === 'shipped' || heldForDelivery;
  const mayAddPackage = travelling && roleMayCall(role, 'POST', ADD_PACKAGE);
  const mayAddEvent = travelling && roleMayCall(role, 'POST', ADD_EVENT);

  const changed = (notice: string) => {
    setDone(notice);
    onChanged();
  };

  if (shipments.length === 0 && !travelling) return null;
  return (
    <section aria-labelledby="shipments-heading" class="shipments">
      <h2 id="shipments-heading">Shipments</h2>
      {heldForDelivery && (
        <p class="delivery-exception" role="note">
          <strong>A delivery exception has put this order on hold</strong>, waiting on the partner (see the hold above). Resuming
          it returns the order to shipped.
        </p>
      )}
      {done && <Notice>{done}</Notice>}
      {shipments.length === 0 ? (
        <p class="muted">No package yet.</p>
      ) : (
        <ShipmentList
          shipments={shipments}
          carrierName={carrierName}
          serviceName={serviceName}
          actions={(shipment, label) =>
            mayAddEvent &&
            shipment.status !== 'delivered' && (
              <Disclosure label={`Add tracking event to ${label.toLowerCase()}`}>
                {(close) => (
                  <EventForm
                    orderId={order.medication_request_id}
                    shipment={shipment}
                    label={label}
                    onCancel={close}
                    onAdded={(status) => {
                      close();
                      changed(`${label}: ${SHIPMENT_STATUS_LABEL[status].toLowerCase()} recorded.`);
                    }}
                  />
                )}
              </Disclosure>
            )
          }
        />
      )}
      {mayAddPackage && (
        <Disclosure label="Add package">
          {(close) => (
            <PackageForm
              order={order}
              carriers={carriers}
              onCancel={close}
              onAdded={(trackingNumber) => {
                close();
                changed(`Package ${trackingNumber} added.`);
              }}
            />
          )}
        </Disclosure>
      )}
      {!mayAddPackage && travelling && !roleMayCall(role, 'POST', ADD_PACKAGE) && (
        <p class="muted">Only staff who may change orders add packages and tracking events.</p>
      )}
    </section>
  );
}

/** Add package: its tracking number, and its carrier and service when they are not the order's. */
function PackageForm({
  order,
  carriers,
  onCancel,
  onAdded,
}: {
  order: OrderDetail;
  carriers: readonly CatalogueCarrier[];
  onCancel: () => void;
  onAdded: (trackingNumber: string) => void;
}) {
  const [trackingNumber, setTrackingNumber] = useState('');
  const [carrierId, setCarrierId] = useState('');
  const [serviceId, setServiceId] = useState('');
  const action = useAction();
  const services = carriers.find((c) => c.id === carrierId)?.services ?? [];

  const submit = async (event: Event) => {
    event.preventDefault();
    await action.run(async () => {
      const number = trackingNumber.trim();
      await api('POST', '/api/admin/medication-requests/{id}/shipments', {
        path: { id: order.medication_request_id },
        body: {
          tracking_number: number,
          ...(carrierId ? { carrier_id: carrierId } : {}),
          ...(serviceId ? { service_id: serviceId } : {}),
        },
      });
      onAdded(number);
    });
  };

  return (
    <form class="shipment-form" aria-label="Add package" onSubmit={handler(submit)}>
      <label>
        Tracking number
        <input
          name="tracking_number"
          required
          minLength={5}
          maxLength={64}
          autocomplete="off"
          spellcheck={false}
          value={trackingNumber}
          onInput={(event) => setTrackingNumber(event.currentTarget.value)}
        />
      </label>
      <label>
        Carrier
        <select
          name="carrier_id"
          value={carrierId}
          onChange={(event) => {
            setCarrierId(event.currentTarget.value);
            setServiceId('');
          }}
        >
          <option value="">The order’s ({order.shipping.carrier_name})</option>
          {carriers.map((carrier) => (
            <option key={carrier.id} value={carrier.id}>
              {carrier.name}
            </option>
          ))}
        </select>
      </label>
      <label>
        Service
        <select
          name="service_id"
          required={carrierId !== ''}
          value={serviceId}
          onChange={(event) => setServiceId(event.currentTarget.value)}
        >
          <option value="">{carrierId ? 'Choose a service…' : `The order’s (${order.shipping.service_name})`}</option>
          {services.map((service) => (
            <option key={service.id} value={service.id}>
              {service.name}
            </option>
          ))}
        </select>
      </label>
      <FormActions action={action} submit="Add package" onCancel={onCancel} />
    </form>
  );
}

/** The `YYYY-MM-DD` of a date input, or nothing. */
const dayOrNothing = (value: string): string | undefined => (/^\d{4}-\d{2}-\d{2}$/.test(value) ? value : undefined);

/** Add tracking event: status, when, where, what the carrier said, and a new estimated delivery. */
function EventForm({
  orderId,
  shipment,
  label,
  onCancel,
  onAdded,
}: {
  orderId: string;
  shipment: Shipment;
  label: string;
  onCancel: () => void;
  onAdded: (status: ShipmentStatus) => void;
}) {
  const [status, setStatus] = useState<ShipmentStatus>(shipment.status === 'label_created' ? 'in_transit' : shipment.status);
  const [occurredAt, setOccurredAt] = useState(localNow);
  // Left as shown, the time is the moment the form is sent (to the millisecond): an event is ordered by
  // its time, and one a minute before the package's latest would not change its status.
  const [timeEdited, setTimeEdited] = useState(false);
  const [location, setLocation] = useState('');
  const [description, setDescription] = useState('');
  const [eta, setEta] = useState('');
  const action = useAction();

  const submit = async (event: Event) => {
    event.preventDefault();
    await action.run(async () => {
      const day = dayOrNothing(eta);
      const body: TrackingEventBody = {
        status,
        occurred_at: timeEdited ? new Date(occurredAt).toISOString() : new Date().toISOString(),
        ...(location.trim() ? { location: location.trim() } : {}),
        ...(description.trim() ? { description: description.trim() } : {}),
        ...(day ? { estimated_delivery_date: day } : {}),
      };
      await api('POST', '/api/admin/medication-requests/{id}/shipments/{shipmentId}/events', {
        path: { id: orderId, shipmentId: shipment.shipment_id },
        body,
      });
      onAdded(status);
    });
  };

  return (
    <form class="shipment-form" aria-label={`Add tracking event to ${label.toLowerCase()}`} onSubmit={handler(submit)}>
      <label>
        Status
        <select name="status" value={status} onChange={(event) => setStatus(event.currentTarget.value as ShipmentStatus)}>
          {SHIPMENT_STATUSES.map((value) => (
            <option key={value} value={value}>
              {SHIPMENT_STATUS_LABEL[value]}
            </option>
          ))}
        </select>
      </label>
      {TROUBLE.includes(status) && <p class="hint">This puts the order on hold (delivery exception), waiting on the partner.</p>}
      <label>
        Occurred at
        <input
          type="datetime-local"
          name="occurred_at"
          required
          value={occurredAt}
          onInput={(event) => {
            setOccurredAt(event.currentTarget.value);
            setTimeEdited(true);
          }}
        />
      </label>
      <label>
        Location <span class="muted">(optional)</span>
        <input
          name="location"
          maxLength={LOCATION_MAX}
          value={location}
          onInput={(event) => setLocation(event.currentTarget.value)}
        />
      </label>
      <label>
        Description <span class="muted">(optional)</span>
        <input
          name="description"
          maxLength={DESCRIPTION_MAX}
          value={description}
          onInput={(event) => setDescription(event.currentTarget.value)}
        />
      </label>
      <label>
        Estimated delivery <span class="muted">(optional)</span>
        <input type="date" name="estimated_delivery_date" value={eta} onInput={(event) => setEta(event.currentTarget.value)} />
      </label>
      <FormActions action={action} submit="Add tracking event" onCancel={onCancel} />
    </form>
  );
}
