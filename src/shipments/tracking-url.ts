import { trackingFormatOf } from './tracking-number.js';

/**
 * The carrier's public tracking page of a tracking number (issue 31, item 1): UPS, FedEx and USPS;
 * null for a carrier without a known page. Pure.
 */
export function trackingUrl(carrierId: string, carrierName: string, trackingNumber: string): string | null {
  const n = encodeURIComponent(trackingNumber);
  switch (trackingFormatOf(carrierId, carrierName)) {
    case 'ups':
      return `https://www.ups.com/track?tracknum=${n}`;
    case 'fedex':
      return `https://www.fedex.com/fedextrack/?trknbr=${n}`;
    case 'usps':
      return `https://tools.usps.com/go/TrackConfirmAction?tLabels=${n}`;
    case 'other':
      return null;
  }
}
