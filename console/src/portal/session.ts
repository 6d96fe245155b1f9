import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { PortalSession } from './types';

export const PortalSessionContext = createContext<PortalSession | null>(null);

/** Replaces the signed-in session (an account change answers the new one). */
export const SetPortalSessionContext = createContext<(session: PortalSession) => void>(() => undefined);

/** The signed-in portal user (pages are only shown to one). */
export function usePortalSession(): PortalSession {
  const session = useContext(PortalSessionContext);
  if (!session) throw new Error('usePortalSession outside a signed-in portal');
  return session;
}

export function useSetPortalSession(): (session: PortalSession) => void {
  return useContext(SetPortalSessionContext);
}

/** Developers change; viewers read (the API answers their changes 403). */
export function useCanChange(): boolean {
  return usePortalSession().role === 'developer';
}
