import { useEffect, useRef } from 'react';
import { useQuery } from '@tanstack/react-query';
import { useEventListener, useInterval } from 'usehooks-ts';
import { api, unwrap } from '../api/client';
import { ApiProblem } from '../api/problem';
import { sessionStore } from './session-store';
import { startSession } from './start-session';

const CHECK_EVERY_MS = 15_000;

/**
 * Keeps a working day from asking for the password again: while the member uses the tab, the
 * token is renewed once half its lifetime has passed. A tab left alone keeps its token until it
 * expires, and the member then signs in again. The server holds the same limits
 * (docs/decisions.md, "Sessions renew while the page is in use").
 */
export function SessionKeeper() {
  const lastActivity = useRef(0);
  const renewing = useRef(false);
  const noteActivity = () => {
    lastActivity.current = Date.now();
  };
  // Opening or reloading the page is using it.
  useEffect(noteActivity, []);
  useEventListener('pointerdown', noteActivity, undefined, { passive: true });
  useEventListener('keydown', noteActivity, undefined, { passive: true });
  useEventListener('wheel', noteActivity, undefined, { passive: true });

  const check = async () => {
    const session = sessionStore.current();
    if (!session || renewing.current) return;
    const now = Date.now();
    if (session.deadline <= now) return sessionStore.end('expired');
    const halfway = session.receivedAt + (session.deadline - session.receivedAt) / 2;
    if (now < halfway || lastActivity.current <= session.receivedAt) return;
    renewing.current = true;
    try {
      await startSession(api.POST('/dashboard/v1/session/renew'));
    } catch (error) {
      // A session that may not be renewed (ended elsewhere, or a working day is over) is over; a
      // service that did not answer is asked again at the next check.
      if (error instanceof ApiProblem && error.status === 401 && sessionStore.current()?.token === session.token) sessionStore.end('expired');
    } finally {
      renewing.current = false;
    }
  };
  useInterval(() => void check(), CHECK_EVERY_MS);

  // The member's role and team as the server has them now, not as they were at sign-in.
  const fresh = useQuery({ queryKey: ['session'], queryFn: () => unwrap(api.GET('/dashboard/v1/session')), refetchInterval: 60_000 });
  useEffect(() => {
    if (fresh.data && fresh.data.member.id === sessionStore.current()?.member.id) sessionStore.update({ member: fresh.data.member, team: fresh.data.team });
  }, [fresh.data]);
  return null;
}
