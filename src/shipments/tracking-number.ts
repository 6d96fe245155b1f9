import { randomInt } from 'node:crypto';

/**
 * Tracking numbers in each carrier's format: the check made when an order is marked shipped, and
 * the test numbers of the sandbox (which pass it). Pure apart from the injectable random source.
 *
 * The formats, checked on the number without its spaces and hyphens, letters in either case (the
 * format only: no check digit, which carriers compute differently per service):
 * - UPS: `1Z` + 16 letters or digits (the 18-character "1Z" number);
 * - USPS: 20 to 22 digits (Intelligent Mail package barcode, USPS Publication 199), or the 13
 *   characters of the UPU S10 standard (2 letters, 9 digits, 2 letters: `EC123456785US`);
 * - FedEx: 12, 15, 20 or 22 digits (Express, Ground, SmartPost, Ground 96);
 * - any other carrier: what the request schema allows (its format is not known here).
 * @see https://github.com/jkeen/tracking_number (its tracking_number_data lists each carrier's formats)
 * @see https://www.upu.int/en/Postal-Solutions/Programmes-Services/Standards (S10)
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

const FORMATS: Record<Exclude<TrackingFormat, 'other'>, { pattern: RegExp; says: string }> = {
  ups: { pattern: /^1Z[0-9A-Z]{16}$/, says: 'a UPS number: 1Z and 16 letters or digits' },
  usps: {
    pattern: /^(\d{20,22}|[A-Z]{2}\d{9}[A-Z]{2})$/,
    says: 'a USPS number: 20 to 22 digits, or 2 letters, 9 digits and 2 letters',
  },
  fedex: { pattern: /^(\d{12}|\d{15}|\d{20}|\d{22})$/, says: 'a FedEx number: 12, 15, 20 or 22 digits' },
};

/** The number as carriers print it apart: without spaces and hyphens, in capitals. */
export const compactTrackingNumber = (value: string): string => value.replace(/[\s-]/g, '').toUpperCase();

/**
 * Null when `value` has the format of `format`'s carrier; else what it must be (the message of a
 * 400 naming tracking_number). A carrier of unknown format takes any number.
 */
export function trackingNumberProblem(format: TrackingFormat, value: string): string | null {
  if (format === 'other') return null;
  const { pattern, says } = FORMATS[format];
  return pattern.test(compactTrackingNumber(value)) ? null : `must be ${says}`;
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
