import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { JITTER_RATIO, nextAttemptAt, withJitter } from '../../src/delivery/retry-schedule.js';

const S = 1000;
const M = 60 * S;
const H = 60 * M;

describe('webhook retry schedule', () => {
  it('when no schedule is configured, then it is immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h', () => {
    expect(loadConfig({}).webhookRetryScheduleMs).toEqual([0, 5 * S, 5 * M, 30 * M, 2 * H, 5 * H, 10 * H, 10 * H]);
  });

  it('when WEBHOOK_RETRY_SCHEDULE is set, then the configuration uses it', () => {
    expect(loadConfig({ WEBHOOK_RETRY_SCHEDULE: '0, 250ms, 1.5s' }).webhookRetryScheduleMs).toEqual([0, 250, 1500]);
  });

  it('when WEBHOOK_RETRY_SCHEDULE is invalid, then the configuration is refused naming it', () => {
    expect(() => loadConfig({ WEBHOOK_RETRY_SCHEDULE: '0,5 minutes' })).toThrow(
      /WEBHOOK_RETRY_SCHEDULE has an invalid delay "5 minutes"/,
    );
    expect(() => loadConfig({ WEBHOOK_RETRY_SCHEDULE: '0,8d' })).toThrow(/WEBHOOK_RETRY_SCHEDULE has a delay over 7 days/);
  });

  it('when jitter is applied, then the delay stays within ±10 %', () => {
    expect(JITTER_RATIO).toBe(0.1);
    expect(withJitter(5000, 0)).toBe(4500);
    expect(withJitter(5000, 0.5)).toBe(5000);
    expect(withJitter(5000, 0.999999)).toBe(5500);
    expect(withJitter(0, 0.9)).toBe(0);
  });

  it('when attempts remain, then the next is due after the delay of its position; when none remain, then null', () => {
    const schedule = [0, 5 * S, 5 * M];
    const failedAt = new Date('2026-01-01T00:00:00Z');
    expect(nextAttemptAt(schedule, 1, failedAt, 0.5)?.toISOString()).toBe('2026-01-01T00:00:05.000Z');
    expect(nextAttemptAt(schedule, 2, failedAt, 0.5)?.toISOString()).toBe('2026-01-01T00:05:00.000Z');
    expect(nextAttemptAt(schedule, 3, failedAt, 0.5)).toBeNull();
  });
});
