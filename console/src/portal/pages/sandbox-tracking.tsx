import { useState } from 'preact/hooks';
import { api } from '../../api';
import { useAction } from '../../components/action';
import { Disclosure } from '../../components/disclosure';
import { handler } from '../../components/events';
import { ErrorMessage, Loading } from '../../components/feedback';
import { FormActions } from '../../components/form-actions';
import { SHIPMENT_STATUS_LABEL, SHIPMENT_STATUSES, type ShipmentStatus } from '../../components/shipments';
import type { TrackingEventBody } from '../../components/shipment-types';
import { useResource } from '../../components/use-resource';
import type { SandboxOrder } from '../types';

/**
 * The sandbox's tracking events (development only; issue 31): for a shipped order (or one a
 * delivery exception put on hold), **Send tracking event** records one for a package as the
 * carrier would, so that a developer sees `shipment.updated` (and `order.delivered` once every
 * package is delivered, or `order.on_hold` for an exception) without waiting for a parcel.
 */
export function SandboxTrackingAction({ order, onSent }: { order: SandboxOrder; onSent: (notice: string) => void }) {
  const travelling =
    order.status === 'shipped' || (order.status === 'on_hold' && order.hold?.reason_code === 'delivery_exception');
  if (!travelling) return null;
  return (
    <Disclosure label="Send tracking event">
      {(close) => (
        <TrackingForm
          order={order}
          onCancel={close}
          onSent={(notice) => {
            close();
            onSent(notice);
          }}
        />
      )}
    </Disclosure>
  );
}

function TrackingForm({
  order,
  onCancel,
  onSent,
}: {
  order: SandboxOrder;
  onCancel: () => void;
  onSent: (notice: string) => void;
}) {
  // The order's packages, read when the form opens (the sandbox list names only the first tracking number).
  const read = useResource(`sandbox order ${order.order_id}`, () =>
    api('GET', '/api/portal/orders/{orderId}', { path: { orderId: order.order_id } }),
  );
  const packages = (read.data?.shipments ?? []).filter((shipment) => shipment.status !== 'delivered');
  const [chosen, setChosen] = useState('');
  const [status, setStatus] = useState<ShipmentStatus>('out_for_delivery');
  const [location, setLocation] = useState('');
  const action = useAction();
  const shipmentId = chosen || packages[0]?.shipment_id || '';

  const submit = async (event: Event) => {
    event.preventDefault();
    await action.run(async () => {
      const body: TrackingEventBody = {
        status,
        occurred_at: new Date().toISOString(),
        ...(location.trim() ? { location: location.trim() } : {}),
      };
      await api('POST', '/api/portal/sandbox/orders/{orderId}/shipments/{shipmentId}/events', {
        path: { orderId: order.order_id, shipmentId },
        body,
      });
      const number = packages.find((shipment) => shipment.shipment_id === shipmentId)?.tracking_number ?? shipmentId;
      onSent(
        `Package ${number} of order ${order.order_id}: ${SHIPMENT_STATUS_LABEL[status].toLowerCase()} recorded; its webhook event shipment.updated is on its way.`,
      );
    });
  };

  if (read.loading && !read.data) return <Loading what="the order’s packages" />;
  if (read.error) return <ErrorMessage error={read.error} />;
  if (packages.length === 0) return <p class="muted">Every package of this order is delivered.</p>;
  return (
    <form aria-label={`Send tracking event for order ${order.order_id}`} onSubmit={handler(submit)}>
      <label>
        Package
        <select value={shipmentId} onChange={(event) => setChosen(event.currentTarget.value)}>
          {packages.map((shipment) => (
            <option key={shipment.shipment_id} value={shipment.shipment_id}>
              {shipment.tracking_number} ({SHIPMENT_STATUS_LABEL[shipment.status].toLowerCase()})
            </option>
          ))}
        </select>
      </label>
      <label>
        Status
        <select value={status} onChange={(event) => setStatus(event.currentTarget.value as ShipmentStatus)}>
          {SHIPMENT_STATUSES.map((value) => (
            <option key={value} value={value}>
              {SHIPMENT_STATUS_LABEL[value]}
            </option>
          ))}
        </select>
      </label>
      <label>
        Location (optional)
        <input maxLength={200} value={location} onInput={(event) => setLocation(event.currentTarget.value)} />
      </label>
      <FormActions action={action} submit="Send tracking event" onCancel={onCancel} />
    </form>
  );
}
