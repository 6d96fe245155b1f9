/**
 * Preloaded into a server process (`NODE_OPTIONS=--import=<this file>`, with CLOCK_AHEAD_MS) to run
 * it that many milliseconds in the future: `new Date()` and `Date.now()` are shifted, everything else
 * about Date is the real one. The server's clock is `new Date()` (src/clock.ts), so the process
 * behaves as one started that much later: how a fault test restarts a server after the leases a
 * killed process left have run out without waiting for them. Timers and `performance.now()` are not
 * shifted (they measure durations), nor is the system time OpenSSL checks certificates against.
 */
import process from 'node:process';

const aheadMs = Number(process.env.CLOCK_AHEAD_MS);
if (!Number.isFinite(aheadMs))
  throw new Error(`CLOCK_AHEAD_MS must be a number of milliseconds, got ${process.env.CLOCK_AHEAD_MS}`);

const RealDate = Date;
const now = () => RealDate.now() + aheadMs;

globalThis.Date = new Proxy(RealDate, {
  construct: (target, args, newTarget) => Reflect.construct(target, args.length === 0 ? [now()] : args, newTarget),
  // `Date()` called as a function: the current time as a string.
  apply: () => new RealDate(now()).toString(),
  get: (target, property, receiver) => (property === 'now' ? now : Reflect.get(target, property, receiver)),
});
