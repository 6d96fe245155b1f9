import { createContext } from 'preact';
import { useContext } from 'preact/hooks';

/** Asks the portal's navigation to count the orders waiting on the clinic again (after an answer or a sandbox hold). */
export const RefreshHoldCountContext = createContext<() => void>(() => undefined);

export function useRefreshHoldCount(): () => void {
  return useContext(RefreshHoldCountContext);
}
