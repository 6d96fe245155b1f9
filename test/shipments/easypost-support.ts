/** A tracker.updated Event as EasyPost posts it (the fields this receiver reads, and a few it does not). */
export function trackerUpdated(overrides: { tracker?: Record<string, unknown>; event?: Record<string, unknown> } = {}) {
  return {
    id: 'evt_9f1c2a7b44d04ea1b3c5d6e7f8a9b0c1',
    object: 'Event',
    mode: 'test',
    description: 'tracker.updated',
    previous_attributes: { status: 'pre_transit' },
    created_at: '2030-03-02T15:00:00Z',
    ...overrides.event,
    result: {
      id: 'trk_0a1b2c3d',
      object: 'Tracker',
      tracking_code: '794612345678',
      status: 'in_transit',
      carrier: 'FedEx',
      weight: 17.0,
      est_delivery_date: '2030-03-05T00:00:00Z',
      tracking_details: [
        {
          object: 'TrackingDetail',
          message: 'Shipment information sent to FedEx',
          status: 'pre_transit',
          datetime: '2030-03-01T15:00:00Z',
          tracking_location: { object: 'TrackingLocation', city: null, state: null, country: 'US', zip: '60601' },
        },
        {
          object: 'TrackingDetail',
          message: 'Departed FedEx location',
          status: 'in_transit',
          datetime: '2030-03-02T09:30:00-05:00',
          tracking_location: { object: 'TrackingLocation', city: 'MEMPHIS', state: 'TN', country: 'US', zip: '38118' },
        },
      ],
      ...overrides.tracker,
    },
  };
}
