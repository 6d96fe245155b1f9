/**
 * The partner's limits on the deliveries to one of its endpoints (issue 18): how many attempts may be
 * in flight at once, and how many may start per second. They hold across every worker of the
 * pharmacy (the delivery engine enforces them); these are their bounds, shared by the registration,
 * the PATCH and the documentation.
 */
export const MAX_IN_FLIGHT = { min: 1, max: 50, default: 10 } as const;

/** No default: an endpoint without a per-second limit (null) gets attempts as fast as `max_in_flight` allows. */
export const MAX_PER_SECOND = { min: 1, max: 1000 } as const;

/** The limits a partner sets; `max_per_second: null` removes that limit. */
export interface EndpointLimits {
  max_in_flight?: number | undefined;
  max_per_second?: number | null | undefined;
  /** The event types the endpoint receives (issue 31, item 6); null: every type; absent: unchanged (default null). */
  event_types?: string[] | null | undefined;
}
