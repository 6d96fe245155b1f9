import { randomInt } from 'node:crypto';

/**
 * Test tracking numbers for the sandbox, in each carrier's real format (REFERENCE-NOTES):
 * UPS `1Z` + 16 characters, FedEx 12 digits, USPS 22 digits. Other carriers get `TEST` + 16
 * digits, which no real carrier issues. Pure apart from the injectable random source.
 */
export type TrackingFormat = 'ups' | 'fedex' | 'usps' | 'other';

const ALNUM = '0123456789ABCDEFGHJKLMNPRSTUVWXYZ';

/** The format of a carrier, from its id or name (`usps` is checked before `ups`, which it contains). */
export function trackingFormatOf(carrierId: string, carrierName: string): TrackingFormat {
  const text = `${carrierId} ${carrierName}`.toLowerCase();
  if (/usps|postal|stamps/.test(text)) return 'usps';
  if (text.includes('fedex')) return 'fedex';
  if (/\bups\b|^ups|united parcel/.test(text)) return 'ups';
  return 'other';
}

export function generateTrackingNumber(
  format: TrackingFormat,
  random: (max: number) => number = (max) => randomInt(max),
): string {
  const digits = (n: number) => Array.from({ length: n }, () => String(random(10))).join('');
  const chars = (n: number) => Array.from({ length: n }, () => ALNUM[random(ALNUM.length)]).join('');
  switch (format) {
    case 'ups':
      // 6-character shipper number, 2-digit service code, 8 digits (the last one a check digit).
      return `1Z${chars(6)}${digits(10)}`;
    case 'fedex':
      return digits(12);
    case 'usps':
      // USPS Priority Mail tracking numbers start 9405 / 9205 / 9400.
      return `9405${digits(18)}`;
    case 'other':
      return `TEST${digits(16)}`;
  }
}
