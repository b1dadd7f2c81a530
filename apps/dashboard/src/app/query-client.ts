import { QueryClient } from '@tanstack/react-query';
import { ApiProblem } from '../api/problem';
import { sessionStore } from '../session/session-store';

/**
 * Server state lives here, not in components. A read the service could not answer (503, a lost
 * connection) is tried twice more on its own, after the wait the service asked for; a refusal is
 * not. Changes are never repeated behind the member's back: the page shows the error and offers
 * to try again.
 */
export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      retry: (failures, error) => failures < 2 && error instanceof ApiProblem && error.retryable,
      retryDelay: (failures, error) => (error instanceof ApiProblem && error.retryAfterSeconds ? error.retryAfterSeconds * 1000 : Math.min(1000 * 2 ** failures, 8000)),
      staleTime: 10_000,
    },
    mutations: { retry: false },
  },
});

/**
 * One member's data is never shown to another: when someone else signs in, or the member signs
 * out, everything cached is dropped. A session that merely expired keeps the cache, so the page
 * under the sign-in dialog stays as it was for the same member.
 */
let cachedFor = sessionStore.current()?.member.id;
sessionStore.subscribe(() => {
  const session = sessionStore.current();
  if (!session && sessionStore.interrupted()) return;
  const member = session?.member.id;
  if (member === cachedFor) return;
  cachedFor = member;
  queryClient.clear();
});
