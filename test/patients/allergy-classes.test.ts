import { describe, expect, it } from 'vitest';
import { classesOfAllergy, containsPhrase, DEFAULT_ALLERGY_CLASSES, mergedClasses } from '../../src/patients/allergy-classes.js';
import { allergyMatches } from '../../src/patients/allergy-match.js';

const codes = (substance: string) => classesOfAllergy(substance, DEFAULT_ALLERGY_CLASSES).map((c) => c.code);

describe('allergy classes', () => {
  it('when the table is read, then it has the classes a compounding pharmacy meets first', () => {
    expect(DEFAULT_ALLERGY_CLASSES.map((c) => c.code)).toEqual(
      expect.arrayContaining([
        'sulfonamides',
        'peg',
        'parabens',
        'benzyl_alcohol',
        'benzyl_benzoate',
        'cottonseed_oil',
        'sesame_oil',
        'peanut_oil',
        'almond_oil',
        'grapeseed_oil',
        'castor_oil',
      ]),
    );
  });

  it('when an allergy is written as a class word, then it names the class', () => {
    expect(codes('Sulfa')).toEqual(['sulfonamides']);
    expect(codes('PEG')).toEqual(['peg']);
    expect(codes('polyethylene glycol')).toEqual(['peg']);
    expect(codes('Parabens')).toEqual(['parabens']);
    expect(codes('arachis oil')).toEqual(['peanut_oil']);
    expect(codes('naltrexone')).toEqual([]);
  });

  it('when a phrase is looked for, then only whole consecutive words count', () => {
    expect(containsPhrase('Refined Cottonseed Oil, USP', 'cottonseed')).toBe(true);
    expect(containsPhrase('Polysorbate 80', 'polysorbate')).toBe(true);
    expect(containsPhrase('pegvisomant', 'peg')).toBe(false);
  });

  it('when a patient allergic to benzyl alcohol is matched with a formula naming it as an inactive ingredient, then it is a match', () => {
    expect(
      allergyMatches(['testosterone cypionate', 'benzyl alcohol', 'cottonseed oil'], [{ substance: 'Benzyl Alcohol' }]),
    ).toEqual([{ ingredient: 'benzyl alcohol', substance: 'Benzyl Alcohol', severity: null, allergy_class: null }]);
  });

  it('when a patient allergic to peanuts is matched with arachis oil, or to PEG with polysorbate 80, then the class links them', () => {
    expect(allergyMatches(['progesterone', 'arachis oil'], [{ substance: 'peanuts', severity: 'severe' }])).toEqual([
      { ingredient: 'arachis oil', substance: 'peanuts', severity: 'severe', allergy_class: 'peanut_oil' },
    ]);
    expect(allergyMatches(['polysorbate 80'], [{ substance: 'PEG' }])[0]?.allergy_class).toBe('peg');
    expect(allergyMatches(['sulfamethoxazole'], [{ substance: 'sulfa drugs' }])[0]?.allergy_class).toBe('sulfonamides');
  });

  it('when the operator adds or replaces a class, then the merged table has it', () => {
    const own = [{ code: 'penicillins', label: 'Penicillins', names: ['penicillin'], members: ['amoxicillin', 'ampicillin'] }];
    const merged = mergedClasses(own);
    expect(allergyMatches(['amoxicillin trihydrate'], [{ substance: 'Penicillin' }], merged)[0]?.allergy_class).toBe(
      'penicillins',
    );
    expect(allergyMatches(['amoxicillin trihydrate'], [{ substance: 'Penicillin' }])).toEqual([]);
    expect(
      mergedClasses([{ code: 'peg', label: 'PEG', names: ['peg'], members: ['macrogol'] }]).find((c) => c.code === 'peg')
        ?.members,
    ).toEqual(['macrogol']);
  });
});
