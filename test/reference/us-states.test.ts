import { describe, expect, it } from 'vitest';
import {
  isUsStateCode,
  isZipCode,
  STATE_CODE_PATTERN,
  stateName,
  US_STATES,
  ZIP_CODE_PATTERN,
} from '../../src/reference/us-states.js';

describe('US state codes', () => {
  it('when the reference list is read, then it holds the 50 states, DC, the 5 territories and the 3 armed forces codes', () => {
    expect(Object.keys(US_STATES)).toHaveLength(50 + 1 + 5 + 3);
    for (const code of ['DC', 'PR', 'GU', 'VI', 'AS', 'MP', 'AA', 'AE', 'AP']) expect(isUsStateCode(code)).toBe(true);
  });

  it.each([
    ['CA', 'California'],
    ['TX', 'Texas'],
    ['DC', 'District of Columbia'],
    ['PR', 'Puerto Rico'],
    ['VI', 'U.S. Virgin Islands'],
  ])('when the code is %s, then stateName gives %s', (code, name) => {
    expect(stateName(code)).toBe(name);
  });

  it.each(['ZZ', 'XX', 'ca', 'C', 'CAL', '', 'constructor', 'toString', '__proto__'])(
    'when the code is %j, then it is not a state and has no name',
    (code) => {
      expect(isUsStateCode(code)).toBe(false);
      expect(stateName(code)).toBeUndefined();
    },
  );

  it('when any known code is written in upper, lower or mixed case, then STATE_CODE_PATTERN accepts it', () => {
    const pattern = new RegExp(STATE_CODE_PATTERN, 'u');
    for (const code of Object.keys(US_STATES)) {
      const [a = '', b = ''] = code.split('');
      for (const variant of [code, code.toLowerCase(), a + b.toLowerCase(), a.toLowerCase() + b]) {
        expect(pattern.test(variant), variant).toBe(true);
      }
    }
  });

  it.each(['ZZ', 'zz', 'XY', 'C', 'CAL', ' CA', 'CA ', 'C A', '', 'C1'])(
    'when the value is %j, then STATE_CODE_PATTERN refuses it',
    (value) => {
      expect(new RegExp(STATE_CODE_PATTERN, 'u').test(value)).toBe(false);
    },
  );
});

describe('ZIP codes', () => {
  it.each(['78701', '00501', '95814-1234'])('when the value is %j, then it is a ZIP code', (zip) => {
    expect(isZipCode(zip)).toBe(true);
    expect(new RegExp(ZIP_CODE_PATTERN, 'u').test(zip)).toBe(true);
  });

  it.each(['7870', '787011', '95814-123', '95814 1234', '958141234', 'ABCDE', '95814-', ' 78701', ''])(
    'when the value is %j, then it is not a ZIP code',
    (zip) => {
      expect(isZipCode(zip)).toBe(false);
    },
  );
});
