import { describe, expect, it } from 'vitest';
import { dobProblem, isCalendarDate, isFutureDate, latestToday } from '../../src/reference/calendar-date.js';

describe('calendar dates', () => {
  it.each(['2024-02-29', '2000-02-29', '2023-12-31', '1900-01-01', '2023-04-30'])(
    'when the value is %s, then it is a calendar date',
    (date) => {
      expect(isCalendarDate(date)).toBe(true);
    },
  );

  it.each([
    ['2023-02-30', 'February 30th'],
    ['2023-02-29', 'February 29th of a common year'],
    ['1900-02-29', 'February 29th of a century year not divisible by 400'],
    ['2023-04-31', 'April 31st'],
    ['2023-13-01', 'month 13'],
    ['2023-00-10', 'month 0'],
    ['2023-01-00', 'day 0'],
    ['2023-1-05', 'a one-digit month'],
    ['05/01/2023', 'US notation'],
    ['2023-01-05T00:00:00Z', 'a date-time'],
    ['', 'nothing'],
  ])('when the value is %j (%s), then it is not a calendar date', (date) => {
    expect(isCalendarDate(date)).toBe(false);
  });
});

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
