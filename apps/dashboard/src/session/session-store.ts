import type { paths } from '../generated/dashboard-v1';

type SignInAnswer = paths['/dashboard/v1/sign-in']['post']['responses'][200]['content']['application/json'];

export interface Session {
  token: string;
  expiresAt: string;
  /** When this token was given: with `expiresAt`, its lifetime, which sets when to renew. */
  issuedAt: string;
  member: SignInAnswer['member'];
  team: SignInAnswer['team'];
}

/** Why the page has no session: shown on the sign-in page. */
export type EndReason = 'signed_out' | 'expired';

const STORAGE_KEY = 'feedback.dashboard.session';
const ENDED_KEY = 'feedback.dashboard.session-ended';

/**
 * The member's session, kept in localStorage so that every tab of the dashboard shares it: a
 * renewal or a sign-out in one tab reaches the others through the `storage` event.
 */
class SessionStore {
  private session: Session | undefined = this.read();
  private readonly listeners = new Set<() => void>();

  constructor() {
    window.addEventListener('storage', (event) => {
      if (event.key !== STORAGE_KEY) return;
      this.session = this.read();
      this.notify();
    });
  }

  current = (): Session | undefined => this.session;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  start(answer: SignInAnswer): void {
    this.session = { token: answer.token, expiresAt: answer.expires_at, issuedAt: new Date().toISOString(), member: answer.member, team: answer.team };
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
    this.session = undefined;
    localStorage.removeItem(STORAGE_KEY);
    localStorage.setItem(ENDED_KEY, reason);
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
      if (!stored || Date.parse(stored.expiresAt) <= Date.now()) return undefined;
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
