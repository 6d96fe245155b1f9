/** Runs `tick` every `intervalMs` until the returned cancel function is called. */
export type IntervalScheduler = (intervalMs: number, tick: () => void) => () => void;

/** The default scheduler: an unref'd setInterval (it never keeps the process alive). */
export const setIntervalScheduler: IntervalScheduler = (intervalMs, tick) => {
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
};
