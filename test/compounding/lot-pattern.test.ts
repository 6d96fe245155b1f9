import { describe, expect, it } from 'vitest';
import { LOT_NUMBER_PATTERN } from '../../src/compounding/lot-pattern.js';
import { LotNumber } from '../../src/compounding/lot-number.js';

/*
 * The lot pattern the API checks and the console's fill form gives the browser (issue 39, item 11).
 * A browser compiles an input's `pattern` as `^(?:pattern)$` with the `v` flag (HTML Living
 * Standard, "The pattern attribute") and ignores a pattern that does not compile: then it checks
 * nothing. The API's validator compiles the schema's pattern with `u`.
 */
const asBrowser = (): RegExp => new RegExp(`^(?:${LOT_NUMBER_PATTERN})$`, 'v');
const asApi = (): RegExp => new RegExp(LotNumber('lot').pattern ?? '', 'u');

describe('the lot number pattern (pure)', () => {
  it('when a browser compiles the fill form’s pattern with the v flag, then it compiles', () => {
    expect(asBrowser).not.toThrow();
  });

  it('when the form’s old pattern is compiled with the v flag, then it throws (what the browser silently skipped)', () => {
    const old = '[A-Za-z0-9][A-Za-z0-9./\\-]*';
    expect(() => new RegExp(`^(?:${old})$`, 'v')).toThrow(SyntaxError);
  });

  it.each(['24-117', 'LOT-A', 'gb-2611-07', '24/117', 'A.1', '9'])(
    'when the lot is %s, then the browser and the API both accept it',
    (lot) => {
      expect(asBrowser().test(lot)).toBe(true);
      expect(asApi().test(lot)).toBe(true);
    },
  );

  it.each(['-24', '/A', '.A', 'LOT 1', 'LOT_1', 'LOT\u00e91', ''])(
    'when the lot is "%s", then the browser and the API both refuse it',
    (lot) => {
      expect(asBrowser().test(lot)).toBe(false);
      expect(asApi().test(lot)).toBe(false);
    },
  );
});
