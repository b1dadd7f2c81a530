import { randomBytes } from 'node:crypto';

/** A small client of /dashboard/v1 for tests: they set things up the way a member would. */
export interface Answer<T = Record<string, unknown>> {
  status: number;
  body: T;
  headers: Headers;
}

export async function call<T = Record<string, unknown>>(
  baseUrl: string,
  method: string,
  path: string,
  options: { token?: string; body?: unknown; key?: string; headers?: Record<string, string> } = {},
): Promise<Answer<T>> {
  const bearer = options.token ?? options.key;
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
      ...options.headers,
    },
    body: options.body !== undefined ? JSON.stringify(options.body) : undefined,
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : {}) as T, headers: response.headers };
}

export interface Owner {
  token: string;
  email: string;
  password: string;
  memberId: string;
  teamId: string;
}

/** Signs up a new team (its Owner), optionally moving it to a paid plan. */
export async function signUpTeam(baseUrl: string, plan: 'free' | 'starter' | 'pro' = 'pro', headers: Record<string, string> = {}): Promise<Owner> {
  const email = `owner-${randomBytes(4).toString('hex')}@example.com`;
  const password = 'correct horse battery staple';
  const session = await call<{ token: string; member: { id: string }; team: { id: string } }>(baseUrl, 'POST', '/dashboard/v1/sign-up', {
    body: { team_name: 'Acme', name: 'Olive Owner', email, password },
    headers,
  });
  if (session.status !== 201) throw new Error(`sign-up failed: ${session.status} ${JSON.stringify(session.body)}`);
  const owner = { token: session.body.token, email, password, memberId: session.body.member.id, teamId: session.body.team.id };
  if (plan !== 'free') {
    const changed = await call(baseUrl, 'PATCH', '/dashboard/v1/team', { token: owner.token, body: { plan } });
    if (changed.status !== 200) throw new Error(`plan change failed: ${changed.status}`);
  }
  return owner;
}

/** Creates an app and rotates its key, which is how the key is first shown; returns the app and that key. */
export async function createApp(baseUrl: string, token: string, name = 'Acme iOS'): Promise<{ appId: number; secretKey: string; publicKey: string }> {
  const created = await call<{ app: { id: number; public_key: string } }>(baseUrl, 'POST', '/dashboard/v1/apps', {
    token,
    body: { name },
  });
  if (created.status !== 201) throw new Error(`app creation failed: ${created.status} ${JSON.stringify(created.body)}`);
  const rotated = await call<{ secret_key: string }>(baseUrl, 'POST', `/dashboard/v1/apps/${created.body.app.id}/api-key/rotate`, { token });
  if (rotated.status !== 200) throw new Error(`key rotation failed: ${rotated.status} ${JSON.stringify(rotated.body)}`);
  return { appId: created.body.app.id, secretKey: rotated.body.secret_key, publicKey: created.body.app.public_key };
}

export async function grantScopes(baseUrl: string, token: string, appId: number, scopes: string[]): Promise<Answer> {
  return call(baseUrl, 'PATCH', `/dashboard/v1/apps/${appId}/api-key`, { token, body: { grant: scopes } });
}
