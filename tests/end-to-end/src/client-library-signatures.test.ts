import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { HttpsReceiver, eventually, testCertificates } from '@feedback/test-support';
import type { ReceivedRequest } from '@feedback/test-support';
import { SIGNATURE_HEADER, WebhookVerificationError, verify } from '@feedback/webhook-signature';
import { call, createApp, signUpTeam } from './dashboard.js';
import type { Owner } from './dashboard.js';
import { startSystem } from './system.js';
import type { RunningSystem } from './system.js';

// The published verification library against signatures the running worker made: every event
// kind a receiver can get verifies, and each way a delivery can be wrong is refused.
let system: RunningSystem;
let owner: Owner;
let appId: number;
let publicKey: string;
let target: HttpsReceiver;
let endpointId: string;
let secret: string;
const url = () => system.api.url;
const ada = { external_id: 'user-ada', name: 'Ada' };

beforeAll(async () => {
  system = await startSystem();
  owner = await signUpTeam(url(), 'pro');
  ({ appId, publicKey } = await createApp(url(), owner.token, 'Library app'));
  target = await HttpsReceiver.start(testCertificates().trusted);
  const created = await call<{ endpoint: { id: string }; signing_secret: string }>(url(), 'POST', `/dashboard/v1/apps/${appId}/webhooks`, {
    token: owner.token,
    body: { name: 'Library receiver', url: target.url(), events: ['suggestion.created', 'suggestion.commented', 'ticket.created', 'ticket.replied'] },
  });
  expect(created.status).toBe(201);
  ({ id: endpointId } = created.body.endpoint);
  secret = created.body.signing_secret;
}, 60_000);

afterAll(async () => {
  await target?.close();
  await system?.stop();
});

const header = (request: ReceivedRequest) => request.headers[SIGNATURE_HEADER.toLowerCase()];
const eventOf = (request: ReceivedRequest) => request.headers['x-service-event'];

async function deliveryOf(event: string, after = 0): Promise<ReceivedRequest> {
  return eventually(() => target.received.slice(after).find((request) => eventOf(request) === event), { what: `a ${event} delivery` });
}

function reasonOf(run: () => unknown): string | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    return error instanceof WebhookVerificationError ? error.reason : String(error);
  }
}

describe('the worker signs, the client library verifies', () => {
  it('verifies every kind of delivery the worker sends, from end users and from members', async () => {
    const suggestion = await call<{ id: number }>(url(), 'POST', '/widget/v1/suggestions', { key: publicKey, body: { title: 'Dark mode', user: ada } });
    expect(suggestion.status).toBe(201);
    await call(url(), 'POST', `/dashboard/v1/apps/${appId}/suggestions/${suggestion.body.id}/comments`, { token: owner.token, body: { body: 'Planned for 2.0 — merci !' } });
    const ticket = await call<{ id: number }>(url(), 'POST', '/widget/v1/tickets', { key: publicKey, body: { subject: 'Crash', body: 'On launch', user: ada } });
    await call(url(), 'POST', `/dashboard/v1/apps/${appId}/tickets/${ticket.body.id}/messages`, { token: owner.token, body: { body: 'Fixed', visibility: 'public' } });
    await call(url(), 'POST', `/dashboard/v1/apps/${appId}/webhooks/${endpointId}/test`, { token: owner.token });

    for (const event of ['suggestion.created', 'suggestion.commented', 'ticket.created', 'ticket.replied', 'webhook.ping']) {
      const request = await deliveryOf(event);
      expect(verify(request.body, header(request), secret).timestamp).toBeGreaterThan(Date.now() / 1000 - 300);
      expect(verify(Buffer.from(request.body, 'utf8'), header(request), secret)).toBeDefined();
    }
  });

  it('refuses a delivery whose body was changed on the way', async () => {
    const request = await deliveryOf('suggestion.created');
    expect(reasonOf(() => verify(request.body.replace('Dark mode', 'Light mode'), header(request), secret))).toBe('signature_mismatch');
  });

  it('refuses a delivery whose body was parsed before verification, saying to pass the raw body', async () => {
    const request = await deliveryOf('suggestion.created');
    expect(reasonOf(() => verify(JSON.parse(request.body) as string, header(request), secret))).toBe('body_not_raw');
  });

  it('refuses a real delivery replayed more than five minutes later', async () => {
    const request = await deliveryOf('suggestion.created');
    const later = () => Date.now() + 301_000;
    expect(reasonOf(() => verify(request.body, header(request), secret, { now: later }))).toBe('timestamp_out_of_tolerance');
  });

  it('refuses a delivery without the signature header', async () => {
    const request = await deliveryOf('suggestion.created');
    expect(reasonOf(() => verify(request.body, undefined, secret))).toBe('malformed_header');
  });

  it('after the secret is rotated, new deliveries verify with the new secret only', async () => {
    const rotated = await call<{ signing_secret: string }>(url(), 'POST', `/dashboard/v1/apps/${appId}/webhooks/${endpointId}/rotate-secret`, { token: owner.token });
    expect(rotated.status).toBe(200);
    const before = target.received.length;
    await call(url(), 'POST', '/widget/v1/suggestions', { key: publicKey, body: { title: 'After rotation', user: ada } });
    const request = await deliveryOf('suggestion.created', before);
    expect(() => verify(request.body, header(request), rotated.body.signing_secret)).not.toThrow();
    expect(reasonOf(() => verify(request.body, header(request), secret))).toBe('signature_mismatch');
  });
});
