import { describe, expect, it } from 'vitest';
import { centsToDollars, dollarsToCents, isDollarAmount } from '../../src/shared/money.js';
import { priceForState, quotePrice } from '../../src/shipping/pricing.js';
import { slugify } from '../../src/shipping/carrier-slug.js';

const ground = { priceCents: 3244, statePrices: { AK: 5899, HI: 5899 } };

describe('shipping price calculation', () => {
  it('when the state has its own price, then that price applies', () => {
    expect(priceForState(ground, 'AK')).toBe(5899);
  });

  it('when the state has no price of its own, then the base price applies', () => {
    expect(priceForState(ground, 'CA')).toBe(3244);
  });

  it('when the state code is lower case or padded, then it still finds the state price', () => {
    expect(priceForState(ground, ' hi ')).toBe(5899);
  });

  it('when the state code is an inherited object key, then the base price applies', () => {
    expect(priceForState(ground, 'constructor')).toBe(3244);
  });

  it('when the clinic pays for shipping, then the total equals the original price', () => {
    expect(quotePrice(ground, 'CA', false)).toEqual({ originalCents: 3244, totalCents: 3244, freeShipmentType: null });
  });

  it('when the clinic has free shipping, then the total is 0 and the original price is kept', () => {
    expect(quotePrice(ground, 'AK', true)).toEqual({ originalCents: 5899, totalCents: 0, freeShipmentType: 'clinic_specific' });
  });
});

describe('dollar amounts', () => {
  it.each([0, 1, 32.44, 0.07, 12.5, 1234.56, 99999.99])('when the amount is %s, then it is accepted', (value) => {
    expect(isDollarAmount(value)).toBe(true);
  });

  it.each([1.234, 0.001, -1, -0.01, Number.NaN, Number.POSITIVE_INFINITY])(
    'when the amount is %s, then it is refused',
    (value) => {
      expect(isDollarAmount(value)).toBe(false);
    },
  );

  it('when dollars go to cents and back, then no cent is lost to floating point', () => {
    for (const dollars of [0.07, 0.29, 1.15, 32.44, 4.35, 19.99, 1005.01]) {
      expect(dollarsToCents(dollars)).toBe(Math.round(dollars * 100));
      expect(centsToDollars(dollarsToCents(dollars))).toBe(dollars);
    }
    expect(dollarsToCents(4.35)).toBe(435);
    expect(centsToDollars(3244)).toBe(32.44);
  });
});

describe('ids derived from names', () => {
  it.each([
    ['FedEx Ground®', 'fedex_ground'],
    ['Stamps.com', 'stamps_com'],
    ['  UPS® Next Day Air  ', 'ups_next_day_air'],
    ['Überland Express', 'uberland_express'],
    ['® · ®', ''],
  ])('when the name is %j, then the id is %j', (name, id) => {
    expect(slugify(name)).toBe(id);
  });

  it('when the name is very long, then the id stops at 64 characters without a trailing underscore', () => {
    const id = slugify(`${'a'.repeat(63)} b`);
    expect(id).toBe('a'.repeat(63));
  });
});
