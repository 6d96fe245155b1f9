import { useState } from 'preact/hooks';

/**
 * The state of a button or form that calls the API: whether it is busy (to disable it) and the
 * error of its last attempt (for ErrorMessage). `run` clears the error, awaits the action and keeps
 * its failure; it never throws, so its callers need no try/catch.
 */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = async (action: () => Promise<void>): Promise<boolean> => {
    setBusy(true);
    setError(null);
    try {
      await action();
      return true;
    } catch (failure) {
      setError(failure);
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run, clearError: () => setError(null) };
}
