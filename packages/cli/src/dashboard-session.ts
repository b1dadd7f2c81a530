/** A member's session on the dashboard API, renewed while the tool runs. */
export interface SessionOptions {
  /** The API's base address, without `/dashboard/v1`. */
  apiUrl: string;
  /** A session token already held (`FEEDBACK_TOKEN`); or sign in with `email` and `password`. */
  token?: string;
  email?: string;
  password?: string;
}

/** An answer of the dashboard API that is not a success: its stable code and message. */
export class DashboardError extends Error {
  override readonly name = 'DashboardError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Calls `/dashboard/v1` with the session's token; throws DashboardError on an error answer. */
export async function dashboardCall<T>(apiUrl: string, method: string, path: string, token: string | undefined, body?: unknown): Promise<T> {
  const answer = await fetch(`${apiUrl}/dashboard/v1${path}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await answer.text();
  const parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  if (!answer.ok) throw new DashboardError(answer.status, String(parsed['error'] ?? answer.status), String(parsed['message'] ?? answer.statusText));
  return parsed as T;
}

/**
 * A session token kept valid: signed in (or given), then renewed once half its lifetime has
 * passed, as the dashboard page does. A session still ends at its absolute end (12 hours).
 */
export class DashboardSession {
  private current = '';
  private timer: NodeJS.Timeout | undefined;
  private readonly renewalListeners = new Set<(token: string) => void>();

  private constructor(private readonly options: SessionOptions) {}

  static async start(options: SessionOptions): Promise<DashboardSession> {
    const session = new DashboardSession(options);
    if (options.token) {
      session.current = options.token;
      const { expires_at } = await dashboardCall<{ expires_at: string }>(options.apiUrl, 'GET', '/session', options.token);
      session.renewBefore(expires_at);
    } else {
      if (!options.email || !options.password) throw new Error('Sign in with FEEDBACK_EMAIL and FEEDBACK_PASSWORD, or give a session token in FEEDBACK_TOKEN.');
      const signedIn = await dashboardCall<{ token: string; expires_at: string }>(options.apiUrl, 'POST', '/sign-in', undefined, { email: options.email, password: options.password });
      session.current = signedIn.token;
      session.renewBefore(signedIn.expires_at);
    }
    return session;
  }

  get token(): string {
    return this.current;
  }

  /** Tells `listener` each renewed token (the listen connection passes it on). */
  onRenewal(listener: (token: string) => void): void {
    this.renewalListeners.add(listener);
  }

  private renewBefore(expiresAt: string): void {
    const halfLife = Math.max(1_000, (Date.parse(expiresAt) - Date.now()) / 2);
    this.timer = setTimeout(() => void this.renew(), halfLife);
    this.timer.unref();
  }

  private async renew(): Promise<void> {
    try {
      const renewed = await dashboardCall<{ token: string; expires_at: string }>(this.options.apiUrl, 'POST', '/session/renew', this.current);
      this.current = renewed.token;
      for (const listener of this.renewalListeners) listener(renewed.token);
      this.renewBefore(renewed.expires_at);
    } catch {
      // Tried again shortly; a session that has ended is told by the server when it closes the stream.
      this.timer = setTimeout(() => void this.renew(), 15_000);
      this.timer.unref();
    }
  }

  stop(): void {
    clearTimeout(this.timer);
  }
}
