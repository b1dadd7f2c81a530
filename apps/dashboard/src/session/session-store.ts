import type { paths } from '../generated/dashboard-v1';

export type SessionAnswer = paths['/dashboard/v1/sign-in']['post']['responses'][200]['content']['application/json'];

export interface Session {
  token: string;
  /**
   * When the token expires, on this browser's clock: the token's lifetime as the server counts it,
   * from the moment it arrived. A clock that is wrong by minutes then changes nothing.
   */
  deadline: number;
  /** When the token arrived, on this browser's clock: halfway to `deadline`, the page renews it. */
  receivedAt: number;
  member: SessionAnswer['member'];
  team: SessionAnswer['team'];
}

/** Why the page has no session: shown on the sign-in page, or over the page being worked on. */
export type EndReason = 'signed_out' | 'expired';

const STORAGE_KEY = 'feedback.dashboard.session';
const ENDED_KEY = 'feedback.dashboard.session-ended';

/**
 * The member's session, kept in localStorage so that every tab of the dashboard shares it: a
 * renewal or a sign-out in one tab reaches the others through the `storage` event.
 *
 * A session that expires or is refused while a page is open leaves `interrupted` behind: the page
 * stays, with what was typed, and asks for the password over it (`RequireSession`).
 */
class SessionStore {
  private session: Session | undefined = this.read();
  private interruptedSession: Session | undefined;
  private readonly listeners = new Set<() => void>();

  constructor() {
    window.addEventListener('storage', (event) => {
      if (event.key !== STORAGE_KEY) return;
      const before = this.session;
      this.session = this.read();
      if (before && !this.session && localStorage.getItem(ENDED_KEY) === 'expired') this.interruptedSession = before;
      this.notify();
    });
  }

  current = (): Session | undefined => this.session;

  /** The session that ended under an open page, until the member signs in again or leaves. */
  interrupted = (): Session | undefined => this.interruptedSession;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /**
   * Keeps a new token. `lifetimeMs` is how long the server gives it, from the server's own clock
   * (`expires_at` less the answer's `Date`).
   */
  start(answer: SessionAnswer, lifetimeMs: number): void {
    const receivedAt = Date.now();
    this.session = { token: answer.token, deadline: receivedAt + lifetimeMs, receivedAt, member: answer.member, team: answer.team };
    this.interruptedSession = undefined;
    localStorage.setItem(STORAGE_KEY, JSON.stringify(this.session));
    localStorage.removeItem(ENDED_KEY);
    this.notify();
  }

  /** Keeps the member and team the server last answered, for the menu and the role checks. */
  update(fields: Partial<Pick<Session, 'member' | 'team'>>): void {
    if (!this.session) return;
    this.session = { ...this.session, ...fields };
    localStorage.setItem(STORAGE_KEY, JSON.stringify(this.session));
    this.notify();
  }

  end(reason: EndReason): void {
    if (!this.session) return;
    this.interruptedSession = reason === 'expired' ? this.session : undefined;
    this.session = undefined;
    localStorage.removeItem(STORAGE_KEY);
    localStorage.setItem(ENDED_KEY, reason);
    this.notify();
  }

  /** Gives up the page that was interrupted: the member goes to the sign-in page instead. */
  abandonInterrupted(): void {
    this.interruptedSession = undefined;
    this.notify();
  }

  /** Why the last session ended, once: the sign-in page says it, and a reload does not repeat it. */
  takeEndReason(): EndReason | undefined {
    const reason = localStorage.getItem(ENDED_KEY);
    localStorage.removeItem(ENDED_KEY);
    return reason === 'signed_out' || reason === 'expired' ? reason : undefined;
  }

  private read(): Session | undefined {
    try {
      const stored = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? 'null') as Session | null;
      if (!stored || typeof stored.deadline !== 'number' || stored.deadline <= Date.now()) return undefined;
      return stored;
    } catch {
      return undefined;
    }
  }

  private notify(): void {
    for (const listener of this.listeners) listener();
  }
}

export const sessionStore = new SessionStore();
