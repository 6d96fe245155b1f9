import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Session } from './api';
import { roleMayCall } from '../../src/staff/operator-roles.js';

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

/**
 * Whether the signed-in staff member's role may call an operator route (`'POST',
 * '/api/admin/medication-requests/:id/status'`): the server's own table (src/staff/operator-roles.ts),
 * so that the console shows a form only to those the route would answer.
 */
export function useMayCall(): (method: string, route: string) => boolean {
  const { role } = useSession();
  return (method, route) => roleMayCall(role, method, route);
}
