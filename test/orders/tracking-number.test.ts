import { describe, expect, it } from 'vitest';
import { generateTrackingNumber, trackingFormatOf } from '../../src/orders/tracking-number.js';

describe('sandbox tracking numbers (pure)', () => {
  it('when the carrier is UPS, then the number is 1Z followed by 16 characters', () => {
    expect(generateTrackingNumber(trackingFormatOf('ups', 'UPS'))).toMatch(/^1Z[0-9A-Z]{16}$/);
  });

  it('when the carrier is FedEx, then the number is 12 digits', () => {
    expect(generateTrackingNumber(trackingFormatOf('fedex', 'FedEx'))).toMatch(/^\d{12}$/);
  });

  it('when the carrier is USPS or Stamps.com, then the number is 22 digits', () => {
    expect(generateTrackingNumber(trackingFormatOf('usps', 'USPS'))).toMatch(/^\d{22}$/);
    expect(trackingFormatOf('se-3818360', 'Stamps.com')).toBe('usps');
  });

  it('when the carrier is unknown, then the number is TEST followed by 16 digits', () => {
    expect(trackingFormatOf('ameriship', 'Ameriship')).toBe('other');
    expect(generateTrackingNumber('other')).toMatch(/^TEST\d{16}$/);
  });
});
