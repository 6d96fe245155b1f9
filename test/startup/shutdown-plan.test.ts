import { describe, expect, it } from 'vitest';
import { shutDown, type ShutdownPlan } from '../../src/shutdown.js';

/** The order of a graceful shutdown (src/shutdown.ts); the processes themselves: test/instances/shutdown.test.ts. */
function plan(overrides: Partial<ShutdownPlan>, steps: string[]): ShutdownPlan {
  return {
    timeoutMs: 60_000,
    drain: async () => void steps.push('drain'),
    cutOff: () => void steps.push('cut off'),
    close: async () => void steps.push('close'),
    failed: (step) => void steps.push(`${step} failed`),
    ...overrides,
  };
}

describe('shutDown', () => {
  it('when the work in flight drains in time, then the stores close after it and the status is 0', async () => {
    const steps: string[] = [];
    expect(await shutDown(plan({}, steps))).toBe(0);
    expect(steps).toEqual(['drain', 'close']);
  });

  it('when the drain outlasts the timeout, then what is left is cut off, the stores close all the same and the status is 1', async () => {
    const steps: string[] = [];
    const never = new Promise<void>(() => undefined);
    expect(await shutDown(plan({ timeoutMs: 1, drain: () => never }, steps))).toBe(1);
    expect(steps).toEqual(['cut off', 'close']);
  });

  it('when a step fails, then it is reported, the stores still close, and the status is 1', async () => {
    const steps: string[] = [];
    const drain = () => Promise.reject(new Error('boom'));
    expect(await shutDown(plan({ drain }, steps))).toBe(1);
    expect(steps).toEqual(['drain failed', 'close']);

    const closing: string[] = [];
    const close = () => Promise.reject(new Error('boom'));
    expect(await shutDown(plan({ close }, closing))).toBe(1);
    expect(closing).toEqual(['drain', 'close failed']);
  });
});
