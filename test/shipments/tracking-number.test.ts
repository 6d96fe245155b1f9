import { describe, expect, it } from 'vitest';
import {
  generateTrackingNumber,
  trackingFormatOf,
  trackingNumberProblem,
  type TrackingFormat,
} from '../../src/shipments/tracking-number.js';

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

describe('tracking number formats (pure)', () => {
  const valid: [TrackingFormat, string][] = [
    ['ups', '1Z999AA10123456784'],
    ['ups', '1z 999 aa1 01 2345 6784'],
    ['usps', '94001111206213000000'],
    ['usps', '9400 1000 0000 0000 0000 01'],
    ['usps', 'EC123456785US'],
    ['fedex', '794612345678'],
    ['fedex', '961102098765431'],
    ['fedex', '61299998820821171811'],
    ['fedex', '9611020987654312345672'],
    ['other', 'ANY-NUMBER-1'],
  ];
  it.each(valid)('when a %s number has its format (%s), then it is accepted', (format, value) => {
    expect(trackingNumberProblem(format, value)).toBeNull();
  });

  const invalid: [TrackingFormat, string][] = [
    ['ups', '1Z999AA1012345678'],
    ['ups', '794612345678'],
    ['usps', '9400111120621300000'],
    ['usps', '94001111206213000000000'],
    ['usps', 'EC12345678US'],
    ['fedex', '1Z999AA10123456784'],
    ['fedex', '7946123456789'],
    ['fedex', 'TRACK-0001'],
  ];
  it.each(invalid)('when a %s number lacks its format (%s), then the problem names the format', (format, value) => {
    expect(trackingNumberProblem(format, value)).toMatch(/^must be a (UPS|USPS|FedEx) number/);
  });

  it('when the sandbox makes a number for a carrier, then it has that carrier\u2019s format', () => {
    for (const format of ['ups', 'usps', 'fedex', 'other'] as const) {
      for (let i = 0; i < 20; i += 1) expect(trackingNumberProblem(format, generateTrackingNumber(format))).toBeNull();
    }
  });
});
