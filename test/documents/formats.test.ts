import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { centsToDecimal, formatDate, formatInstant, formatTime, formatUsd, sumCents } from '../../src/documents/formats.js';
import { printable } from '../../src/documents/pdf-document.js';

describe('how the documents write money', () => {
  it.each([
    [0, '$0.00', '0.00'],
    [5, '$0.05', '0.05'],
    [99, '$0.99', '0.99'],
    [100, '$1.00', '1.00'],
    [123_456, '$1,234.56', '1234.56'],
    [123_456_789_01, '$123,456,789.01', '123456789.01'],
    [-500, '-$5.00', '-5.00'],
    [-1, '-$0.01', '-0.01'],
  ])('when %i cents are written, then they read %s (%s in a CSV)', (cents, usd, decimal) => {
    expect(formatUsd(cents)).toBe(usd);
    expect(centsToDecimal(cents)).toBe(decimal);
  });

  it('when cents are not whole or not exact in a double, then they are refused', () => {
    expect(() => formatUsd(0.5)).toThrow(RangeError);
    expect(() => formatUsd(Number.NaN)).toThrow(RangeError);
    expect(() => sumCents([Number.MAX_SAFE_INTEGER, 1])).toThrow(RangeError);
    expect(sumCents([10, 20])).toBe(30);
  });
});

describe('how the documents write dates and times', () => {
  it('when a date, a time and an instant are written, then months are named and the time zone is the pharmacy’s', () => {
    expect(formatDate('2026-03-05')).toBe('Mar 5, 2026');
    expect(formatDate('2028-02-29')).toBe('Feb 29, 2028');
    expect(formatTime('00:05')).toBe('12:05 AM');
    expect(formatTime('12:00')).toBe('12:00 PM');
    expect(formatTime('17:30')).toBe('5:30 PM');
    expect(formatInstant('2026-07-01T18:00:00.000Z', 'America/Los_Angeles')).toBe('Jul 1, 2026, 11:00 AM PDT');
  });

  it('when a date or time does not exist, then it is refused rather than printed', () => {
    expect(() => formatDate('2026-02-30')).toThrow(RangeError);
    expect(() => formatTime('24:00')).toThrow(RangeError);
    expect(() => formatInstant('yesterday', 'UTC')).toThrow(RangeError);
  });
});

describe('text in the standard fonts', () => {
  it.each([
    ['Zoë O’Brien – “Jr.”', 'Zoë O’Brien – “Jr.”'],
    ['Antonín Dvořák', 'Antonín Dvorák'],
    ['≥ 5 μg', '>= 5 µg'],
    ['Line one\nline two\ttab', 'Line one line two tab'],
    ['hidden\u200bjoin\u202eright', 'hiddenjoinright'],
    ['陈伟', '??'],
  ])('when %j is printed, then it reads %j', (text, shown) => {
    expect(printable(text)).toBe(shown);
  });

  it('when text may hold lines, then its line breaks are kept', () => {
    expect(printable('one\r\ntwo', true)).toBe('one\ntwo');
  });
});

describe('the documents folder', () => {
  it('when src/documents is read, then pdfkit is loaded on first use only (import(), never a static import)', () => {
    const folder = path.resolve(import.meta.dirname, '../../src/documents');
    const files = readdirSync(folder).filter((file) => file.endsWith('.ts'));
    const texts = files.map((file) => readFileSync(path.join(folder, file), 'utf8'));

    expect(texts.filter((text) => /^\s*import\s+(?!type\b)[^;]*from\s+'pdfkit'/m.test(text))).toEqual([]);
    expect(texts.some((text) => text.includes("await import('pdfkit')"))).toBe(true);
  });
});
