import { describe, expect, it } from 'vitest';
import { fillBeyondUse, localDateOf, type FillFormula } from '../../src/medications/fill-beyond-use.js';

const NEW_YORK = 'America/New_York';
const nonAqueous: FillFormula = {
  preparation: 'non_sterile',
  bud_category: 'non_aqueous',
  storage: 'room',
  beyond_use_days: null,
  sterile: null,
};
const sterile = (overrides: Partial<FillFormula>): FillFormula => ({
  preparation: 'sterile',
  bud_category: 'aqueous_preserved',
  storage: 'refrigerated',
  beyond_use_days: null,
  sterile: { category: 2, sterilization: 'aseptic', nonsterile_component: false, sterility_tested: false },
  ...overrides,
});

describe('the beyond-use date of a fill, on the pharmacy\u2019s calendar', () => {
  it('when a fill is compounded at 20:30 in New York (01:30 UTC the next day), then its days count from the New York day', () => {
    const at = '2026-03-03T01:30:00.000Z';
    expect(localDateOf(at, NEW_YORK)).toBe('2026-03-02');
    expect(fillBeyondUse(nonAqueous, at, NEW_YORK, [])).toEqual({
      beyond_use_date: '2026-05-31',
      beyond_use_at: null,
      basis: 'usp_795',
      limiting_lot: null,
    });
    expect(fillBeyondUse(nonAqueous, at, 'UTC', []).beyond_use_date).toBe('2026-06-01');
  });

  it('when a Category 2 aseptic preparation from sterile components is kept refrigerated, then it gets at most 10 days', () => {
    const result = fillBeyondUse(sterile({}), '2026-03-02T14:00:00.000Z', NEW_YORK, []);
    expect(result).toMatchObject({ beyond_use_date: '2026-03-12', basis: 'usp_797', beyond_use_at: null });
  });

  it('when a sterile entry has no condition, then it takes the most conservative row: 4 days refrigerated', () => {
    expect(fillBeyondUse(sterile({ sterile: null }), '2026-03-02T14:00:00.000Z', NEW_YORK, []).beyond_use_date).toBe(
      '2026-03-06',
    );
  });

  it('when an entry gives fewer days than the standard, then the entry decides and says so', () => {
    expect(fillBeyondUse(sterile({ beyond_use_days: 7 }), '2026-03-02T14:00:00.000Z', NEW_YORK, [])).toMatchObject({
      beyond_use_date: '2026-03-09',
      basis: 'entry',
    });
    expect(fillBeyondUse({ ...nonAqueous, beyond_use_days: 30 }, '2026-03-02T14:00:00.000Z', NEW_YORK, [])).toMatchObject({
      beyond_use_date: '2026-04-01',
      basis: 'entry',
    });
  });

  it('when a Category 1 preparation is compounded, then it gets a time 12 or 24 hours later and that time\u2019s date', () => {
    const result = fillBeyondUse(
      sterile({
        storage: 'room',
        sterile: { category: 1, sterilization: 'aseptic', nonsterile_component: false, sterility_tested: false },
      }),
      '2026-03-02T23:00:00.000Z',
      NEW_YORK,
      [],
    );
    expect(result).toEqual({
      beyond_use_date: '2026-03-03',
      beyond_use_at: '2026-03-03T11:00:00.000Z',
      basis: 'usp_797',
      limiting_lot: null,
    });
  });

  it('when an ingredient lot expires before the standard\u2019s date, then the lot decides and is named', () => {
    const result = fillBeyondUse(nonAqueous, '2026-03-02T14:00:00.000Z', NEW_YORK, [
      { lot_number: 'OIL-1', expires_on: '2026-08-01' },
      { lot_number: 'API-7', expires_on: '2026-04-15' },
    ]);
    expect(result).toEqual({
      beyond_use_date: '2026-04-15',
      beyond_use_at: null,
      basis: 'ingredient_lot',
      limiting_lot: 'API-7',
    });
  });

  it('when a lot expires on the standard\u2019s date or later, then it does not shorten it', () => {
    expect(
      fillBeyondUse(nonAqueous, '2026-03-02T14:00:00.000Z', NEW_YORK, [{ lot_number: 'L', expires_on: '2026-05-31' }]).basis,
    ).toBe('usp_795');
  });

  it('when a Category 1 preparation\u2019s lot expires before its time, then it ends at the last minute of the expiry day', () => {
    const result = fillBeyondUse(
      sterile({
        storage: 'refrigerated',
        sterile: { category: 1, sterilization: 'aseptic', nonsterile_component: false, sterility_tested: false },
      }),
      '2026-03-02T20:00:00.000Z',
      NEW_YORK,
      [{ lot_number: 'L', expires_on: '2026-03-02' }],
    );
    expect(result).toEqual({
      beyond_use_date: '2026-03-02',
      beyond_use_at: '2026-03-03T04:59:00.000Z',
      basis: 'ingredient_lot',
      limiting_lot: 'L',
    });
  });
});
