import createClient from 'openapi-fetch';
import type { Middleware } from 'openapi-fetch';
import type { paths } from '../generated/dashboard-v1';
import { ApiProblem, problemFrom } from './problem';
import { sessionStore } from '../session/session-store';

/**
 * The only way the page reaches the system: /dashboard/v1 on the page's own origin, typed from the
 * OpenAPI document the api serves. The member's token rides on every request; an answer saying
 * the session is over signs the page out.
 */
const authorization: Middleware = {
  onRequest({ request }) {
    const token = sessionStore.current()?.token;
    if (token) request.headers.set('Authorization', `Bearer ${token}`);
    return request;
  },
  async onResponse({ request, response }) {
    if (response.status === 401 && request.headers.has('Authorization')) {
      const body = (await response.clone().json().catch(() => undefined)) as { error?: string } | undefined;
      // Unless the token is already a newer one: another tab renewed it meanwhile.
      if (body?.error === 'invalid_session' && sessionStore.current()?.token === request.headers.get('Authorization')?.slice('Bearer '.length)) {
        sessionStore.end('expired');
      }
    }
    return response;
  },
};

export const api = createClient<paths>({ baseUrl: window.location.origin });
api.use(authorization);

type Answer<T> = { data?: T; error?: unknown; response: Response };

/**
 * A success's data with its response, or an `ApiProblem` thrown with the error body. A request
 * that never got an answer is a `network_error`.
 */
export async function answered<T>(request: Promise<Answer<T>>): Promise<{ data: T; response: Response }> {
  let answer: Answer<T>;
  try {
    answer = await request;
  } catch {
    throw new ApiProblem(0, 'network_error', 'The service could not be reached.');
  }
  if (answer.response.ok) return { data: answer.data as T, response: answer.response };
  throw problemFrom(answer.response, answer.error);
}

/** The answer's data, or an `ApiProblem`: what TanStack Query and the forms expect. */
export async function unwrap<T>(request: Promise<Answer<T>>): Promise<T> {
  return (await answered(request)).data;
}
