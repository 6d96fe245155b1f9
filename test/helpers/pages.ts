import { expect } from 'vitest';
import type { TestApp, TestClinic } from './test-app.js';

/** Every page of a partner list (`data: {items, next_cursor}`), following `next_cursor` to the end. */
export async function allPages(t: TestApp, clinic: TestClinic, path: string): Promise<any[][]> {
  const pages: any[][] = [];
  let url: string | null = path;
  while (url !== null) {
    const res = await t.partner(clinic.apiKey).get(url);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    pages.push(res.body.data.items);
    const next: string | null = res.body.data.next_cursor;
    url = next === null ? null : `${path}${path.includes('?') ? '&' : '?'}cursor=${encodeURIComponent(next)}`;
  }
  return pages;
}

/** A partner list's query that must be refused: 400 VALIDATION_ERROR with `details` naming `field`. */
export async function expectFieldRefused(t: TestApp, clinic: TestClinic, url: string, field: string): Promise<void> {
  const res = await t.partner(clinic.apiKey).get(url);
  expect(res.status, url).toBe(400);
  expect(res.body.error.code, url).toBe('VALIDATION_ERROR');
  expect(Object.keys(res.body.error.details ?? {}), url).toContain(field);
}
