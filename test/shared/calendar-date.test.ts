import { describe, expect, it } from 'vitest';
import { isCalendarDate } from '../../src/shared/calendar-date.js';

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
    ['2030-02-30', 'a day Date.parse rolls over to March'],
  ])('when the value is %j (%s), then it is not a calendar date', (date) => {
    expect(isCalendarDate(date)).toBe(false);
  });
});
