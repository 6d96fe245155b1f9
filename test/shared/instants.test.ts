import { describe, expect, it } from 'vitest';
import { oneMsLater } from '../../src/shared/instants.js';

describe('one millisecond later', () => {
  it('when an instant is given, then the next step is one millisecond after it, in the stored form', () => {
    expect(oneMsLater('2030-01-08T10:00:00.000Z')).toBe('2030-01-08T10:00:00.001Z');
  });

  it('when the instant is the last millisecond of a year, then the next step is the first of the next year', () => {
    expect(oneMsLater('2030-12-31T23:59:59.999Z')).toBe('2031-01-01T00:00:00.000Z');
  });

  it('when two steps follow, then they sort after each other as text', () => {
    const first = '2030-01-08T10:00:00.009Z';
    expect(oneMsLater(first) > first).toBe(true);
  });
});
