/**
 * The graceful shutdown of a process (the server, the standalone worker): on SIGTERM/SIGINT, stop
 * taking work and let the work in flight finish within SHUTDOWN_TIMEOUT_MS, then close the stores.
 * Past the timeout, what is left is cut off (and logged by `cutOff`), the stores are closed all the
 * same (buffers they hold are flushed), and the exit status is 1 so that an orchestrator sees it.
 *
 * @see docs/operations.md "Shutdown"
 */
export interface ShutdownPlan {
  timeoutMs: number;
  /** Stops taking work and resolves once the work in flight has finished. */
  drain: () => Promise<void>;
  /** Called once when the timeout passes before `drain` resolved: logs what is in flight and cuts it off. */
  cutOff: () => void;
  /** Closes the stores (database, Redis) last, after the drain, or after the cut-off. */
  close: () => Promise<void>;
  /** Logs a failed step; the shutdown goes on. */
  failed: (step: 'drain' | 'close', error: unknown) => void;
}

/** Runs the plan; resolves with the exit status: 0 when everything finished in time and closed cleanly, else 1. */
export async function shutDown(plan: ShutdownPlan): Promise<number> {
  let clean = true;
  let timer: NodeJS.Timeout | undefined;
  const drained = plan.drain().then(
    () => 'drained' as const,
    (error: unknown) => {
      plan.failed('drain', error);
      clean = false;
      return 'drained' as const;
    },
  );
  const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), plan.timeoutMs)));
  if ((await Promise.race([drained, timedOut])) === 'timeout') {
    clean = false;
    plan.cutOff();
  }
  clearTimeout(timer);
  try {
    await plan.close();
  } catch (error) {
    plan.failed('close', error);
    clean = false;
  }
  return clean ? 0 : 1;
}
