import { answered } from '../api/client';
import { sessionStore } from './session-store';
import type { SessionAnswer } from './session-store';

/** A second less than the server gives: its `Date` header counts whole seconds. */
const CLOCK_MARGIN_MS = 1000;

/**
 * Keeps the session a sign-up, sign-in or renewal answered. The token's lifetime is measured on
 * the server's clock, `expires_at` less the answer's `Date`, so a browser clock that is off by
 * minutes neither ends the session early nor keeps a dead token.
 */
export async function startSession(request: Parameters<typeof answered<SessionAnswer>>[0]): Promise<SessionAnswer> {
  const { data, response } = await answered(request);
  const serverNow = Date.parse(response.headers.get('Date') ?? '');
  const lifetimeMs = Date.parse(data.expires_at) - (Number.isNaN(serverNow) ? Date.now() : serverNow) - CLOCK_MARGIN_MS;
  sessionStore.start(data, lifetimeMs);
  return data;
}
