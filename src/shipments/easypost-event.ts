import { fieldError } from '../errors.js';
import { isCalendarDate } from '../shared/calendar-date.js';
import { collapseSpaces } from '../shared/text.js';
import type { CarrierTrackingUpdate } from './carrier-tracking.service.js';
import type { TrackingEventInput } from './shipment-journey.js';
import type { ShipmentStatus } from '../shipping/shipment-status.js';

/**
 * EasyPost's `tracker.updated` Event, read into the carrier tracking update the shipments take in
 * (docs/shipping.md#the-easypost-receiver). Pure: no I/O, bounded work for any body.
 *
 * An Event is `{id: "evt_…", object: "Event", description, result, …}`; for `tracker.updated` its
 * `result` is the whole Tracker: `tracking_code`, `status`, `est_delivery_date` and `tracking_details`
 * (every scan so far, oldest first: `{status, message, datetime, tracking_location: {city, state,
 * country, zip}}`).
 * @see https://docs.easypost.com/docs/events
 * @see https://docs.easypost.com/docs/trackers
 */

/** Our shipment statuses (shipping/shipment-status.ts). */
export type CarrierShipmentStatus = ShipmentStatus;

/** One scan, as the shipments record it. */
export type CarrierTrackingEvent = TrackingEventInput;

/** What a tracker.updated Event says about one tracking number. */
export type CarrierTracking = CarrierTrackingUpdate;

/**
 * EasyPost's statuses (the Tracker's and each TrackingDetail's) onto ours. `unknown` (EasyPost has
 * no status for the scan yet) is not a status change: null, the scan is not recorded. A status
 * EasyPost adds later reads as `unknown` until it is mapped here.
 */
export const EASYPOST_STATUS_MAP: Readonly<Record<string, CarrierShipmentStatus | null>> = Object.freeze({
  pre_transit: 'label_created',
  in_transit: 'in_transit',
  out_for_delivery: 'out_for_delivery',
  delivered: 'delivered',
  // Held at a depot or pickup point: the patient must act, so the partner is told (a delivery exception).
  available_for_pickup: 'exception',
  return_to_sender: 'returned_to_sender',
  failure: 'exception',
  cancelled: 'exception',
  error: 'exception',
  unknown: null,
});

/** Our status for an EasyPost status, or null when the scan is not recorded (`unknown`, or a status not known here). */
export function mapEasyPostStatus(status: string): CarrierShipmentStatus | null {
  return Object.hasOwn(EASYPOST_STATUS_MAP, status) ? (EASYPOST_STATUS_MAP[status] ?? null) : null;
}

/** At most this many scans are read of one Event: the most recent ones (a Tracker lists every scan so far). */
export const MAX_TRACKING_DETAILS = 100;
/** The longest location kept ("City, ST"), in characters. */
export const MAX_LOCATION_LENGTH = 200;
/** The longest scan description kept (the carrier's message), in characters. */
export const MAX_DESCRIPTION_LENGTH = 500;
/** The longest tracking code read (carriers' are at most 34 characters). */
export const MAX_TRACKING_CODE_LENGTH = 64;
/** The longest Event id read (`evt_` and 32 hex digits in practice). */
export const MAX_EVENT_ID_LENGTH = 64;

/** The Event EasyPost sends for a Tracker's change: the only one this receiver reads. */
export const TRACKER_UPDATED = 'tracker.updated';

export type EasyPostEvent =
  /** An Event of another description (`batch.updated`, `tracker.created`…): answered 200 and ignored. */
  | { kind: 'ignored'; eventId: string; description: string }
  /** A tracker.updated Event; `skipped`: scans not recorded (`unknown`, an unreadable time, past the bound). */
  | { kind: 'tracker'; eventId: string; tracking: CarrierTracking; skipped: number };

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * Reads a parsed Event body. Throws a 400 naming the field when the body is not an EasyPost Event
 * (`body`, `id`, `description`) or not a readable tracker.updated one (`result`,
 * `result.tracking_code`, `result.tracking_details`). Within a Tracker, what cannot be read of one
 * scan skips that scan (counted), so that one odd scan does not hold back the others.
 */
export function readEasyPostEvent(body: unknown): EasyPostEvent {
  if (!isObject(body)) throw fieldError('body', 'must be an EasyPost Event (a JSON object)');
  const eventId = body.id;
  if (typeof eventId !== 'string' || !/^evt_[A-Za-z0-9]+$/.test(eventId) || eventId.length > MAX_EVENT_ID_LENGTH) {
    throw fieldError('id', `must be the Event's id (evt_ and letters or digits, at most ${MAX_EVENT_ID_LENGTH} characters)`);
  }
  const description = body.description;
  if (typeof description !== 'string' || description.length === 0 || description.length > 100) {
    throw fieldError('description', 'must be the Event type (such as tracker.updated)');
  }
  if (description !== TRACKER_UPDATED) return { kind: 'ignored', eventId, description: cleanText(description, 100) ?? '' };

  const tracker = body.result;
  if (!isObject(tracker)) throw fieldError('result', 'must be the Tracker the tracker.updated Event is about');
  const code = typeof tracker.tracking_code === 'string' ? tracker.tracking_code.replace(/\s/g, '') : '';
  if (code === '' || code.length > MAX_TRACKING_CODE_LENGTH || !/^[A-Za-z0-9-]+$/.test(code)) {
    throw fieldError(
      'result.tracking_code',
      `must be the tracking number (letters, digits and hyphens, at most ${MAX_TRACKING_CODE_LENGTH} characters)`,
    );
  }
  const details = tracker.tracking_details ?? [];
  if (!Array.isArray(details)) throw fieldError('result.tracking_details', 'must be an array of TrackingDetail objects');

  const recent = details.slice(-MAX_TRACKING_DETAILS);
  let skipped = details.length - recent.length;
  const events: CarrierTrackingEvent[] = [];
  for (const detail of recent) {
    const event = isObject(detail) ? trackingEventOf(detail) : null;
    if (event === null) skipped += 1;
    else events.push(event);
  }
  return {
    kind: 'tracker',
    eventId,
    tracking: { tracking_number: code, events, estimated_delivery_date: deliveryDateOf(tracker.est_delivery_date) },
    skipped,
  };
}

/** One TrackingDetail as our event, or null when it is not recorded (`unknown`, no readable time). */
function trackingEventOf(detail: Record<string, unknown>): CarrierTrackingEvent | null {
  const status = typeof detail.status === 'string' ? mapEasyPostStatus(detail.status) : null;
  if (status === null) return null;
  const occurredAt = instantOf(detail.datetime);
  if (occurredAt === null) return null;
  const message = typeof detail.message === 'string' ? detail.message : detail.description;
  return {
    status,
    occurred_at: occurredAt,
    location: locationOf(detail.tracking_location),
    description: typeof message === 'string' ? cleanText(message, MAX_DESCRIPTION_LENGTH) : null,
  };
}

/**
 * An ISO 8601 date-time with its offset (`2024-07-31T19:27:00Z`, or the scan's local time with its
 * offset when EasyPost knows the place), as UTC with milliseconds; null when it is not one.
 */
export function instantOf(value: unknown): string | null {
  if (typeof value !== 'string' || value.length > 40) return null;
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i.test(value)) return null;
  if (!isCalendarDate(value.slice(0, 10))) return null;
  const time = Date.parse(value);
  return Number.isFinite(time) ? new Date(time).toISOString() : null;
}

/**
 * The estimated delivery day: EasyPost's `est_delivery_date` is a date-time (`2024-08-05T00:00:00Z`)
 * whose date part is the carrier's day; that day, `YYYY-MM-DD`. Null when absent or unreadable.
 */
export function deliveryDateOf(value: unknown): string | null {
  if (typeof value !== 'string' || value.length > 40) return null;
  const day = /^\d{4}-\d{2}-\d{2}(?=T|$)/.exec(value)?.[0];
  return day !== undefined && isCalendarDate(day) ? day : null;
}

/**
 * Where a scan happened, as "City, ST" (and the country when it is not the US): never the ZIP code,
 * which at the end of a journey is the patient's own. Null when the carrier names no city, state or country.
 */
export function locationOf(value: unknown): string | null {
  if (!isObject(value)) return null;
  const part = (field: string, max: number): string | null =>
    typeof value[field] === 'string' ? cleanText(value[field], max) : null;
  const city = part('city', 100);
  const state = part('state', 50);
  const country = part('country', 50);
  const parts = [city, state, country !== null && !/^(US|USA)$/i.test(country) ? country : null].filter(
    (text): text is string => text !== null,
  );
  return parts.length === 0 ? null : cleanText(parts.join(', '), MAX_LOCATION_LENGTH);
}

// C0 and C1 controls, DEL, line and paragraph separators: whitespace to us.
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
// Bidirectional controls and marks, zero-width characters, soft hyphen, lone surrogates: dropped.
const INVISIBLE = /[\u061c\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff]|\p{Cs}/gu;

/**
 * Carrier text as it may be stored and shown: NFC, without control, bidirectional or zero-width
 * characters (controls become spaces, the others are dropped), runs of spaces collapsed, trimmed,
 * at most `max` characters (code points, never half a pair). Null when nothing is left. Linear:
 * at most `max` × 4 characters of the value are read.
 */
export function cleanText(value: string, max: number): string | null {
  const text = collapseSpaces(
    value
      .slice(0, max * 4)
      .replace(INVISIBLE, '')
      .replace(CONTROLS, ' ')
      .normalize('NFC'),
  );
  const points = Array.from(text);
  const kept =
    points.length > max
      ? `${points
          .slice(0, max - 1)
          .join('')
          .trimEnd()}…`
      : text;
  return kept === '' ? null : kept;
}
