import { describe, expect, it } from 'vitest';
import { dobProblem, isFutureDate, latestToday } from '../../src/reference/calendar-date.js';

describe('dates in the future', () => {
  const now = new Date('2025-06-15T12:00:00Z');

  it('when it is noon UTC, then the latest "today" on Earth (UTC+14) is the next day', () => {
    expect(latestToday(now)).toBe('2025-06-16');
    expect(latestToday(new Date('2025-06-15T09:59:59Z'))).toBe('2025-06-15');
  });

  it('when a date is today somewhere on Earth, then it is not in the future', () => {
    expect(isFutureDate('2025-06-15', now)).toBe(false);
    expect(isFutureDate('2025-06-16', now)).toBe(false);
  });

  it('when a date has not begun anywhere yet, then it is in the future', () => {
    expect(isFutureDate('2025-06-17', now)).toBe(true);
    expect(isFutureDate('2026-01-01', now)).toBe(true);
  });
});

describe('dates of birth', () => {
  const now = new Date('2025-06-15T12:00:00Z');

  it.each(['1980-12-09', '2025-06-15', '1900-01-01'])('when the dob is %s, then it is accepted', (dob) => {
    expect(dobProblem(dob, now)).toBeUndefined();
  });

  it.each([
    ['2023-02-30', 'must be a real calendar date written YYYY-MM-DD'],
    ['2030-01-01', 'must not be in the future'],
    ['1899-12-31', 'must not be before 1900-01-01'],
  ])('when the dob is %s, then it is refused: %s', (dob, problem) => {
    expect(dobProblem(dob, now)).toBe(problem);
  });
});
