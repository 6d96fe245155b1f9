import type { ComponentChildren } from 'preact';
import type { Check, ListsAll } from '../api-types';
import { calendarDate } from '../pages/order-shared';
import { Time } from './feedback';
import type { Shipment, ShipmentEvent, ShipmentStatus } from './shipment-types';

export type { Shipment, ShipmentEvent, ShipmentStatus };

/** Every status a package takes (docs/shipping.md), in the order a journey goes; checked against the API's enum. */
export const SHIPMENT_STATUSES = [
  'label_created',
  'in_transit',
  'out_for_delivery',
  'delivered',
  'exception',
  'returned_to_sender',
] as const satisfies readonly ShipmentStatus[];
export type ShipmentStatusesListed = Check<ListsAll<ShipmentStatus, typeof SHIPMENT_STATUSES>>;

export const SHIPMENT_STATUS_LABEL: Record<ShipmentStatus, string> = {
  label_created: 'Label created',
  in_transit: 'In transit',
  out_for_delivery: 'Out for delivery',
  delivered: 'Delivered',
  exception: 'Delivery exception',
  returned_to_sender: 'Returned to sender',
};

/** The statuses that stop a package (and put its order on hold, waiting on the partner). */
export const TROUBLE: readonly ShipmentStatus[] = ['exception', 'returned_to_sender'];

export function ShipmentStatusBadge({ status }: { status: ShipmentStatus }) {
  return <span class={`status shipment-${status}`}>{SHIPMENT_STATUS_LABEL[status]}</span>;
}

/** An estimated delivery: a calendar date (`2026-12-01`) as a day, whatever the time zone; a time as a time. */
function Eta({ value }: { value: string | null }) {
  if (!value) return <span class="muted">not given</span>;
  return /^\d{4}-\d{2}-\d{2}$/.test(value) ? <>{calendarDate(value)}</> : <Time iso={value} />;
}

/** The carrier's tracking page, in a new tab that cannot reach back into this page; only an https address is a link. */
export function TrackingNumber({ shipment }: { shipment: Pick<Shipment, 'tracking_number' | 'tracking_url'> }) {
  const url = shipment.tracking_url;
  if (url && url.startsWith('https://')) {
    return (
      <a href={url} target="_blank" rel="noopener noreferrer">
        <code>{shipment.tracking_number}</code>
        <span class="visually-hidden"> (the carrier’s tracking page, in a new tab)</span>
      </a>
    );
  }
  return <code>{shipment.tracking_number}</code>;
}

/** A package's tracking events, newest first; two of the same time, the one the API lists later first. */
export const newestFirst = (events: readonly ShipmentEvent[]): ShipmentEvent[] =>
  events
    .map((event, index) => ({ event, index, at: Date.parse(event.occurred_at) }))
    .sort((a, b) => b.at - a.at || b.index - a.index)
    .map(({ event }) => event);

/**
 * The order's journey (issue 31): each package, with its carrier and service, its tracking number
 * (a link to the carrier's page when there is one), its status, estimated delivery and its tracking
 * events as a timeline, newest first. `carrierName` names a carrier or service id when the page knows
 * it; `actions` adds what a page offers for a package (the console's "Add tracking event").
 */
export function ShipmentList({
  shipments,
  carrierName = (id) => id,
  serviceName = (_carrierId, id) => id,
  actions,
}: {
  shipments: readonly Shipment[];
  carrierName?: (carrierId: string) => string;
  serviceName?: (carrierId: string, serviceId: string) => string;
  actions?: (shipment: Shipment, label: string) => ComponentChildren;
}) {
  return (
    <>
      {shipments.map((shipment, index) => {
        const label = shipments.length === 1 ? 'Package' : `Package ${index + 1} of ${shipments.length}`;
        const events = newestFirst(shipment.events);
        return (
          <article
            key={shipment.shipment_id}
            class={`shipment${TROUBLE.includes(shipment.status) ? ' shipment-trouble' : ''}`}
            aria-label={`${label}: ${shipment.tracking_number}`}
          >
            <h3>
              {label} <ShipmentStatusBadge status={shipment.status} />
            </h3>
            <dl class="facts">
              <dt>Carrier</dt>
              <dd>
                {carrierName(shipment.carrier_id)}, {serviceName(shipment.carrier_id, shipment.service_id)}
              </dd>
              <dt>Tracking number</dt>
              <dd>
                <TrackingNumber shipment={shipment} />
              </dd>
              <dt>Estimated delivery</dt>
              <dd>
                <Eta value={shipment.estimated_delivery_date} />
              </dd>
            </dl>
            <h4>Tracking events</h4>
            {events.length === 0 ? (
              <p class="muted">No tracking event yet.</p>
            ) : (
              <ol class="timeline" aria-label={`Tracking events of ${label.toLowerCase()}, newest first`}>
                {events.map((event, at) => (
                  <li key={`${event.occurred_at}-${event.status}-${at}`}>
                    <Time iso={event.occurred_at} /> <ShipmentStatusBadge status={event.status} />
                    {event.location && <span class="event-location"> {event.location}</span>}
                    {event.description && <span class="event-description"> — {event.description}</span>}
                  </li>
                ))}
              </ol>
            )}
            {actions?.(shipment, label)}
          </article>
        );
      })}
    </>
  );
}
