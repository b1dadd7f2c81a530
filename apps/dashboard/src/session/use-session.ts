import { useSyncExternalStore } from 'react';
import { sessionStore } from './session-store';
import type { Session } from './session-store';

export function useSession(): Session | undefined {
  return useSyncExternalStore(sessionStore.subscribe, sessionStore.current);
}

/** The signed-in member's session; only inside the signed-in part of the page. */
export function useSignedIn(): Session {
  const session = useSession();
  if (!session) throw new Error('useSignedIn outside the signed-in routes');
  return session;
}

/** Owners and Admins manage API keys and webhook endpoints (specification 1.4). */
export function canManageKeys(session: Session): boolean {
  return session.member.role === 'owner' || session.member.role === 'admin';
}
