import type { ServiceContext } from '../context.js';
import { runChange } from '../changes/run-change.js';
import { recordJourney, type TrackingEventInput, type Who } from './shipment-journey.js';
import * as shipments from './shipment.repository.js';

/*
 * The carrier's tracking (docs/shipping.md#the-easypost-receiver): a carrier's update of a tracking
 * number applied to the shipment that has it. The EasyPost receiver reads the update
 * (easypost-event.ts) and hands it here (easypost.service.ts).
 */

/** What a carrier says of one tracking number: its events (any order, replays welcome) and its estimate. */
export interface CarrierTrackingUpdate {
  tracking_number: string;
  events: TrackingEventInput[];
  /** YYYY-MM-DD; null: no estimate given (a known estimate is kept). */
  estimated_delivery_date: string | null;
}

/**
 * `applied`: a new event was recorded or the estimate changed; `unchanged`: every event was known
 * already, or the shipment is delivered (its journey is over); `unknown_tracking_number`: no
 * shipment has the number.
 */
export type CarrierTrackingOutcome = 'applied' | 'unchanged' | 'unknown_tracking_number';

/** Who a carrier's update is, in the order's history: the pharmacy's side, named as the carrier feed. */
const CARRIER: Who = { actor: 'operator', named: { actorId: null, actorName: 'Carrier tracking' } };

/**
 * The EasyPost receiver's entry point: applies every event of `update` not yet recorded to the
 * shipment with its tracking number, as one change with no actor (a system change: not audited).
 */
export async function applyCarrierTracking(ctx: ServiceContext, update: CarrierTrackingUpdate): Promise<CarrierTrackingOutcome> {
  return runChange(ctx, null, async (change) => {
    const trx = await change.transaction();
    const found = await shipments.findShipmentByTracking(trx, update.tracking_number.trim());
    if (found === undefined) return 'unknown_tracking_number';
    const order = await shipments.lockOrder(trx, found.medication_request_id);
    if (order === undefined) return 'unknown_tracking_number';
    const result = await recordJourney(change, trx, order, found.id, update.events, update.estimated_delivery_date, CARRIER, ctx);
    return result.applied ? 'applied' : 'unchanged';
  });
}
