import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Session } from './api';

export const SessionContext = createContext<Session | null>(null);

/** Replaces the signed-in session (an account change answers the new one); null signs out. */
export const SetSessionContext = createContext<(session: Session | null) => void>(() => undefined);

/** The signed-in staff member (pages are only shown to one). */
export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside a signed-in console');
  return session;
}

export function useSetSession(): (session: Session | null) => void {
  return useContext(SetSessionContext);
}
