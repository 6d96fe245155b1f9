import { describe, expect, it } from 'vitest';
import {
  businessHoursBetween,
  businessMsBetween,
  isTimeZone,
  nextDate,
  startOfLocalDay,
} from '../../src/shared/business-hours.js';
import { loadConfig } from '../../src/config.js';

/** The working time of the queue's age column (src/shared/business-hours.ts): Monday to Friday, 09:00-17:00. */
const hours = (start: string, end: string, zone = 'UTC') => businessHoursBetween(new Date(start), new Date(end), zone);

describe('working hours between two instants', () => {
  it('when both instants fall in one working day, then the time between them counts', () => {
    // 2030-01-07 is a Monday.
    expect(hours('2030-01-07T10:00:00Z', '2030-01-07T12:30:00Z')).toBe(2.5);
  });

  it('when the instants lie outside the working day, then only 09:00-17:00 counts', () => {
    expect(hours('2030-01-07T06:00:00Z', '2030-01-07T20:00:00Z')).toBe(8);
    expect(hours('2030-01-07T17:30:00Z', '2030-01-08T08:59:00Z')).toBe(0);
  });

  it('when a weekend lies between, then Saturday and Sunday count nothing', () => {
    // Friday 16:00 to Monday 10:00.
    expect(hours('2030-01-11T16:00:00Z', '2030-01-14T10:00:00Z')).toBe(2);
    expect(hours('2030-01-12T10:00:00Z', '2030-01-13T16:00:00Z')).toBe(0);
  });

  it('when whole weeks lie between, then each counts 40 hours', () => {
    expect(hours('2030-01-07T09:00:00Z', '2030-01-14T09:00:00Z')).toBe(40);
    expect(hours('2030-01-07T09:00:00Z', '2031-01-06T09:00:00Z')).toBe(52 * 40);
  });

  it('when the end is not after the start, then nothing counts', () => {
    expect(hours('2030-01-07T12:00:00Z', '2030-01-07T10:00:00Z')).toBe(0);
    expect(businessMsBetween(new Date('2030-01-07T12:00:00Z'), new Date('2030-01-07T12:00:00Z'), 'UTC')).toBe(0);
  });

  it('when the pharmacy is in another zone, then its wall clock sets the working day', () => {
    // 14:00-22:00 UTC is 09:00-17:00 in New York in January (UTC-5).
    expect(hours('2030-01-07T13:00:00Z', '2030-01-07T23:00:00Z', 'America/New_York')).toBe(8);
    // Friday 16:00 to 21:30 in New York (Saturday 02:30 in UTC): the hour to 17:00 counts, as Friday's.
    expect(hours('2030-01-11T21:00:00Z', '2030-01-12T02:30:00Z', 'America/New_York')).toBe(1);
  });

  it('when the clocks change during the span, then each working day still counts 8 hours', () => {
    // New York springs forward on Sunday 2030-03-10: Friday 09:00 (UTC-5) to Monday 17:00 (UTC-4).
    expect(hours('2030-03-08T14:00:00Z', '2030-03-11T21:00:00Z', 'America/New_York')).toBe(16);
  });

  it('when the time is a fraction of an hour, then it is rounded down to a tenth', () => {
    expect(hours('2030-01-07T10:00:00Z', '2030-01-07T10:11:59Z')).toBe(0.1);
    expect(hours('2030-01-07T10:00:00Z', '2030-01-07T10:05:59Z')).toBe(0);
  });
});

describe('days of the pharmacy\u2019s calendar', () => {
  it('when a day starts in a zone, then its first instant is midnight on that zone\u2019s clock', () => {
    expect(startOfLocalDay('2030-01-08', 'America/New_York').toISOString()).toBe('2030-01-08T05:00:00.000Z');
    expect(startOfLocalDay('2030-07-08', 'America/New_York').toISOString()).toBe('2030-07-08T04:00:00.000Z');
    expect(startOfLocalDay('2030-01-08', 'UTC').toISOString()).toBe('2030-01-08T00:00:00.000Z');
    expect(startOfLocalDay('2030-01-08', 'Asia/Kolkata').toISOString()).toBe('2030-01-07T18:30:00.000Z');
  });

  it('when a day is given, then the next one is the day after on the calendar', () => {
    expect(nextDate('2030-12-31')).toBe('2031-01-01');
  });

  it('when PHARMACY_TIME_ZONE is not a zone, then the configuration is refused naming it; unset, it is UTC', () => {
    expect(isTimeZone('Europe/Paris')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
    expect(() => loadConfig({ PHARMACY_TIME_ZONE: 'Mars/Olympus' })).toThrow(/PHARMACY_TIME_ZONE/);
    expect(loadConfig({}).pharmacyTimeZone).toBe('UTC');
    expect(loadConfig({ PHARMACY_TIME_ZONE: 'America/Chicago' }).pharmacyTimeZone).toBe('America/Chicago');
  });
});
