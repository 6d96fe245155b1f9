import { describe, expect, it } from 'vitest';
import { blankToNull, collapseSpaces } from '../../src/shared/text.js';

describe('optional free text', () => {
  it.each([undefined, null, '', '   ', '\t\n'])('when the value is %j, then it is stored as null', (value) => {
    expect(blankToNull(value)).toBeNull();
  });

  it('when the value has spaces around it, then it is stored trimmed', () => {
    expect(blankToNull('  after meals ')).toBe('after meals');
  });
});

describe('collapsed spaces', () => {
  it('when a name has spaces around it and runs of whitespace inside, then it is trimmed and each run is one space', () => {
    expect(collapseSpaces('  estradiol \t  cypionate\n')).toBe('estradiol cypionate');
  });

  it('when a name has single spaces only, then it is unchanged', () => {
    expect(collapseSpaces('progesterone micronized')).toBe('progesterone micronized');
  });

  it('when a name is blank, then nothing is left', () => {
    expect(collapseSpaces(' \u00a0 ')).toBe('');
  });
});
