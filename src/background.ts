/**
 * Runs a promise that nobody awaits: a signal handler's shutdown, or work started from a callback
 * whose caller ignores what it returns. Its failure goes to `onError`, which should log it (and may
 * end the process), instead of becoming an unhandled rejection, which would crash the process with
 * nothing in the log. Use this rather than `void promise` (which the lint configuration refuses).
 * `onError` must not throw.
 */
export function runInBackground(promise: Promise<unknown>, onError: (error: unknown) => void): void {
  promise.catch(onError);
}
