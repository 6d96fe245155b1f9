/**
 * The delivery worker's two timers: the next planned look at the queue (a due retry, a pause's end,
 * a lease to renew, the poll), and the short wait that gathers finished attempts, or events
 * committed in a burst, into one look.
 * Setting either replaces it; `clear` ends both (a look is starting, or the worker stopping).
 */
export class LookTimers {
  private planned: NodeJS.Timeout | null = null;
  private gathering: NodeJS.Timeout | null = null;
  private gatherAt = 0;

  /** Runs `then` in `delayMs` (at once if negative), instead of the look planned before. */
  plan(delayMs: number, then: () => void): void {
    if (this.planned) clearTimeout(this.planned);
    this.planned = setTimeout(
      () => {
        this.planned = null;
        then();
      },
      Math.max(0, delayMs),
    );
  }

  /** Runs `then` in `delayMs` at the latest: a wait already running ends then too, or sooner if it was set so. */
  gather(delayMs: number, then: () => void): void {
    const at = performance.now() + Math.max(0, delayMs);
    if (this.gathering && this.gatherAt <= at) return;
    if (this.gathering) clearTimeout(this.gathering);
    this.gatherAt = at;
    this.gathering = setTimeout(
      () => {
        this.gathering = null;
        then();
      },
      Math.max(0, delayMs),
    );
  }

  /** Whether finished attempts are being gathered for a look soon. */
  get gatheringNow(): boolean {
    return this.gathering !== null;
  }

  clear(): void {
    if (this.planned) clearTimeout(this.planned);
    if (this.gathering) clearTimeout(this.gathering);
    this.planned = null;
    this.gathering = null;
  }
}
