import { useSyncExternalStore } from 'react';
import { sessionStore } from './session-store';
import type { Session } from './session-store';

export function useSession(): Session | undefined {
  return useSyncExternalStore(sessionStore.subscribe, sessionStore.current);
}

export function useInterruptedSession(): Session | undefined {
  return useSyncExternalStore(sessionStore.subscribe, sessionStore.interrupted);
}

/**
 * The signed-in member's session; only inside the signed-in part of the page. While a session
 * that ended is being renewed by signing in again over the page, the page keeps rendering as it
 * was, for the same member.
 */
export function useSignedIn(): Session {
  const session = useSession();
  const interrupted = useInterruptedSession();
  const shown = session ?? interrupted;
  if (!shown) throw new Error('useSignedIn outside the signed-in routes');
  return shown;
}

/** Owners and Admins manage API keys and webhook endpoints (specification 1.4). */
export function canManageKeys(session: Session): boolean {
  return session.member.role === 'owner' || session.member.role === 'admin';
}
