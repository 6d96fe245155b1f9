import { describe, expect, it } from 'vitest';
import { allergyMatches } from '../../src/patients/allergy-match.js';
import { SALT_WORDS, substanceKey } from '../../src/patients/substance-key.js';
import { intakeHoldOf, type ItemInUse } from '../../src/holds/intake-hold.js';

describe('the allergy name rule', () => {
  it('when names differ only by case, spacing or salt words, then they are one substance', () => {
    const key = substanceKey('naltrexone');
    for (const name of ['Naltrexone Hydrochloride', 'NALTREXONE  HCl', ' naltrexone-hcl ', 'Naltrexone']) {
      expect(substanceKey(name)).toBe(key);
    }
    expect(substanceKey('Semaglutide sodium')).toBe(substanceKey('semaglutide'));
    expect(substanceKey('Levo thyroxine Sodium')).toBe(substanceKey('levothyroxine'));
  });

  it('when two substances differ, then their keys differ (no partial or class match)', () => {
    expect(substanceKey('naltrexone')).not.toBe(substanceKey('naloxone'));
    expect(substanceKey('penicillin')).not.toBe(substanceKey('amoxicillin'));
    expect(substanceKey('estradiol')).not.toBe(substanceKey('estriol'));
  });

  it('when a name is made only of salt words, then it is compared as written', () => {
    expect(substanceKey('Sulfate')).toBe('sulfate');
    expect(substanceKey('potassium chloride')).toBe('potassiumchloride');
    expect(substanceKey('Magnesium sulfate')).not.toBe(substanceKey('sulfate'));
  });

  it('when the salt list is read, then it is lower case, sorted and without repeats (one documented list)', () => {
    expect(SALT_WORDS.every((w) => w === w.toLowerCase() && /^[a-z]+$/.test(w))).toBe(true);
    expect([...SALT_WORDS].sort()).toEqual(SALT_WORDS);
    expect(new Set(SALT_WORDS).size).toBe(SALT_WORDS.length);
    for (const word of ['sodium', 'hydrochloride', 'hcl', 'potassium', 'acetate', 'sulfate', 'citrate']) {
      expect(SALT_WORDS).toContain(word);
    }
  });

  it('when an ingredient matches an allergy, then the match names both, each ingredient once', () => {
    expect(
      allergyMatches(
        ['Naltrexone Hydrochloride', 'Microcrystalline cellulose', 'naltrexone HCl'],
        [{ substance: 'naltrexone', severity: 'severe' }, { substance: 'Latex' }],
      ),
    ).toEqual([{ ingredient: 'Naltrexone Hydrochloride', substance: 'naltrexone', severity: 'severe', allergy_class: null }]);
    expect(allergyMatches(['Semaglutide'], [{ substance: 'naltrexone' }])).toEqual([]);
  });
});

const ENTRY = {
  name: 'LDN 4.5 mg',
  therapeutic_class: null,
  ingredients: JSON.stringify([
    { name: 'Naltrexone Hydrochloride', strength: '4.5', unit: 'mg', active: true },
    { name: 'Avicel', strength: '100', unit: 'mg', active: false },
  ]),
};
const NOW = '2026-03-01T12:00:00.000Z';

const inUse = (overrides: Partial<ItemInUse> = {}): ItemInUse => ({
  medication_request_id: 'order-1',
  chain_origin_id: null,
  status: 'processing',
  shipped_at: null,
  days_supply: 30,
  medication: 'LDN 3 mg',
  ingredients: JSON.stringify([{ name: 'naltrexone', strength: '3', unit: 'mg', active: true }]),
  therapeutic_class: null,
  ...overrides,
});

describe('the intake hold', () => {
  const hold = (input: Partial<Parameters<typeof intakeHoldOf>[0]>) =>
    intakeHoldOf({ entries: [ENTRY], allergies: [], inUse: [], chainOriginId: null, now: NOW, ...input });

  it('when an active ingredient is an allergy, then allergy_conflict names the ingredient and the allergy', () => {
    const result = hold({ allergies: [{ substance: 'naltrexone', reaction: 'hives', severity: 'moderate' }] });
    expect(result?.reason_code).toBe('allergy_conflict');
    expect(result?.message).toContain('Naltrexone Hydrochloride (in LDN 4.5 mg)');
    expect(result?.message).toContain('allergy to naltrexone (moderate)');
  });

  it('when only an inactive ingredient is an allergy, then allergy_conflict names it as inactive', () => {
    const result = hold({ allergies: [{ substance: 'avicel', reaction: null, severity: 'severe' }] });
    expect(result?.reason_code).toBe('allergy_conflict');
    expect(result?.message).toContain(
      'Avicel (inactive, in LDN 4.5 mg) matches the patient\u2019s recorded allergy to avicel (severe).',
    );
  });

  it('when an allergy names a class that covers an ingredient, then the message names the class', () => {
    const entry = {
      name: 'Bactrim suspension',
      therapeutic_class: null,
      ingredients: JSON.stringify([
        { name: 'Sulfamethoxazole', strength: '40', unit: 'mg/mL', active: true },
        { name: 'Methylparaben', strength: '1', unit: 'mg/mL', active: false },
      ]),
    };
    const result = hold({ entries: [entry], allergies: [{ substance: 'Sulfa', reaction: null, severity: null }] });
    expect(result?.message).toContain(
      'Sulfamethoxazole (in Bactrim suspension) matches the patient\u2019s recorded allergy to Sulfa (class: Sulfonamide antibiotics).',
    );
    expect(result?.message).not.toContain('Methylparaben');
  });

  it('when the operator\u2019s classes are given, then they are the ones compared', () => {
    const classes = [{ code: 'penicillins', label: 'Penicillins', names: ['penicillin'], members: ['amoxicillin'] }];
    const entry = {
      name: 'Amoxicillin',
      therapeutic_class: null,
      ingredients: JSON.stringify([{ name: 'amoxicillin trihydrate', strength: '50', unit: 'mg/mL', active: true }]),
    };
    const allergies = [{ substance: 'Penicillin', reaction: null, severity: null }];
    expect(hold({ entries: [entry], allergies })).toBeNull();
    expect(hold({ entries: [entry], allergies, classes })?.message).toContain('(class: Penicillins)');
  });

  it('when another order in use is of the same therapeutic class, then duplicate_therapy names the class and the order', () => {
    const semaglutide = {
      name: 'Semaglutide',
      therapeutic_class: 'glp1_receptor_agonist',
      ingredients: JSON.stringify([{ name: 'semaglutide sodium', strength: '2.5', unit: 'mg/mL', active: true }]),
    };
    const tirzepatide = inUse({
      medication: 'Tirzepatide',
      ingredients: JSON.stringify([{ name: 'tirzepatide', strength: '10', unit: 'mg/mL', active: true }]),
      therapeutic_class: 'glp1_receptor_agonist',
    });
    const result = hold({ entries: [semaglutide], inUse: [tirzepatide] });
    expect(result?.reason_code).toBe('duplicate_therapy');
    expect(result?.message).toBe(
      'Duplicate therapy: Semaglutide is of the therapeutic class glp1_receptor_agonist, as the patient\u2019s order order-1 (Tirzepatide, processing) is. The pharmacist reviews it before the order proceeds.',
    );
    expect(hold({ entries: [{ ...semaglutide, therapeutic_class: 'testosterone' }], inUse: [tirzepatide] })).toBeNull();
    // An entry with a class and no formula is compared by its class.
    expect(
      hold({ entries: [{ ...semaglutide, ingredients: null }], inUse: [{ ...tirzepatide, ingredients: null }] })?.reason_code,
    ).toBe('duplicate_therapy');
  });

  it('when the same ingredient and class are in one other order, then it is named once, by its ingredient', () => {
    const entry = { ...ENTRY, therapeutic_class: 'opioid_antagonist' };
    const result = hold({ entries: [entry], inUse: [inUse({ therapeutic_class: 'opioid_antagonist' })] });
    expect(result?.message).toContain('is already in the patient\u2019s order order-1');
    expect(result?.message).not.toContain('therapeutic class');
  });

  it('when the other order is the one this order replaces, then it is not a duplicate', () => {
    expect(hold({ inUse: [inUse()], replaced: new Set(['order-1']) })).toBeNull();
    expect(hold({ inUse: [inUse()], replaced: new Set(['order-2']) })?.reason_code).toBe('duplicate_therapy');
  });

  it('when an entry has no formula, then there is nothing to compare', () => {
    expect(
      hold({
        entries: [{ name: 'Semaglutide', ingredients: null, therapeutic_class: null }, undefined],
        allergies: [{ substance: 'semaglutide', reaction: null, severity: null }],
        inUse: [inUse()],
      }),
    ).toBeNull();
  });

  it('when another order in use has the ingredient, then duplicate_therapy names it and the order', () => {
    const result = hold({ inUse: [inUse()] });
    expect(result?.reason_code).toBe('duplicate_therapy');
    expect(result?.message).toContain('already in the patient\u2019s order order-1 (LDN 3 mg, processing)');
  });

  it('when both apply, then the allergy is the reason and the message names both', () => {
    const result = hold({ allergies: [{ substance: 'Naltrexone', reaction: null, severity: null }], inUse: [inUse()] });
    expect(result?.reason_code).toBe('allergy_conflict');
    expect(result?.message).toContain('Duplicate therapy');
  });

  it('when the other order is of the same refill chain, then it is never a duplicate', () => {
    expect(hold({ inUse: [inUse({ medication_request_id: 'origin' })], chainOriginId: 'origin' })).toBeNull();
    expect(hold({ inUse: [inUse({ chain_origin_id: 'origin' })], chainOriginId: 'origin' })).toBeNull();
  });

  it('when the other order is final or shipped longer ago than its days supply, then it is no longer in use', () => {
    expect(hold({ inUse: [inUse({ status: 'delivered' })] })).toBeNull();
    expect(hold({ inUse: [inUse({ status: 'cancelled' })] })).toBeNull();
    expect(hold({ inUse: [inUse({ status: 'shipped', shipped_at: '2026-01-30T12:00:00.000Z', days_supply: 30 })] })).toBeNull();
    expect(
      hold({ inUse: [inUse({ status: 'shipped', shipped_at: '2026-01-30T12:00:01.000Z', days_supply: 30 })] })?.reason_code,
    ).toBe('duplicate_therapy');
    expect(
      hold({ inUse: [inUse({ status: 'shipped', shipped_at: '2025-01-01T00:00:00.000Z', days_supply: null })] })?.reason_code,
    ).toBe('duplicate_therapy');
  });

  it('when the message would be longer than a hold message may be, then it is cut to the limit', () => {
    const allergies = Array.from({ length: 50 }, (_, i) => ({
      substance: `substance${i} ${'x'.repeat(150)}`,
      reaction: null,
      severity: null,
    }));
    const ingredients = allergies.map((a) => ({ name: a.substance, strength: '1', unit: 'mg', active: true }));
    const result = hold({
      entries: [{ name: 'Many', ingredients: JSON.stringify(ingredients), therapeutic_class: null }],
      allergies,
    });
    expect(result?.message.length).toBe(2000);
  });
});
