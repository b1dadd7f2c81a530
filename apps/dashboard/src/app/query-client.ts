import { QueryClient } from '@tanstack/react-query';
import { ApiProblem } from '../api/problem';

/**
 * Server state lives here, not in components. A read the service could not answer (503, a lost
 * connection) is tried twice more on its own; a refusal is not. Changes are never repeated
 * behind the member's back: the page shows the error and offers to try again.
 */
export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      retry: (failures, error) => failures < 2 && error instanceof ApiProblem && error.retryable,
      staleTime: 10_000,
    },
    mutations: { retry: false },
  },
});
