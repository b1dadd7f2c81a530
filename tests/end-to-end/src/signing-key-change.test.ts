import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { HttpsReceiver, eventually, testCertificates } from '@feedback/test-support';
import type { ReceivedRequest } from '@feedback/test-support';
import { SIGNATURE_HEADER, verify } from '@feedback/webhook-signature';
import { SecretBox } from '../../../services/webhook-worker/src/endpoints/signing-secrets.js';
import { call, createApp, signUpTeam } from './dashboard.js';
import { startSystem } from './system.js';
import type { RunningSystem } from './system.js';
import { spawnWorker } from './worker-process.js';

let system: RunningSystem;
let target: HttpsReceiver;
let database: pg.Client;
const workers: ChildProcess[] = [];

beforeAll(async () => {
  system = await startSystem();
  target = await HttpsReceiver.start(testCertificates().trusted);
  database = new pg.Client({ connectionString: system.env['DATABASE_URL'] });
  await database.connect();
}, 60_000);

afterAll(async () => {
  for (const worker of workers) worker.kill('SIGKILL');
  await database?.end();
  await target?.close();
  await system?.stop();
});

/** Whether the receiver, holding `secret`, accepts the request's signature (the published verifier). */
function signedWith(request: ReceivedRequest, secret: string): boolean {
  try {
    verify(request.body, request.headers[SIGNATURE_HEADER.toLowerCase()], secret);
    return true;
  } catch {
    return false;
  }
}

describe('a change of the key that seals signing secrets', () => {
  it('keeps every endpoint signing with the secret its receiver has: previous keys open them, and they are sealed again under the new key', async () => {
    const oldKey = system.env['SIGNING_SECRET_ENCRYPTION_KEY']!;
    const newKey = randomBytes(32).toString('base64');
    const owner = await signUpTeam(system.api.url, 'pro');
    const app = await createApp(system.api.url, owner.token);
    const created = await call<{ endpoint: { id: string }; signing_secret: string }>(system.api.url, 'POST', `/dashboard/v1/apps/${app.appId}/webhooks`, {
      token: owner.token,
      body: { name: 'Receiver', url: target.url(), events: ['suggestion.created'] },
    });
    expect(created.status).toBe(201);
    const secret = created.body.signing_secret;
    const sealed = async () => (await database.query<{ s: string }>('SELECT secret_encrypted AS s FROM webhooks.webhook_endpoints WHERE id = $1', [created.body.endpoint.id])).rows[0]!.s;
    const endpointId = created.body.endpoint.id;
    expect(new SecretBox(oldKey).open(await sealed(), endpointId)).toBe(secret);
    const suggest = (title: string) => call(system.api.url, 'POST', '/widget/v1/suggestions', { key: app.publicKey, body: { title, user: { external_id: 'u-1' } } });

    // Deployed with the new key, the old one kept as a previous key.
    await system.worker.stop();
    workers.push(spawnWorker({ ...system.env, SIGNING_SECRET_ENCRYPTION_KEY: newKey, SIGNING_SECRET_PREVIOUS_KEYS: oldKey }));
    await suggest('Signed by a worker with both keys');
    const [first] = await eventually(() => (target.received.length >= 1 ? target.received : undefined), { what: 'a delivery', timeoutMs: 30_000 });
    expect(signedWith(first!, secret)).toBe(true);
    await eventually(async () => (new SecretBox(newKey).inspect(await sealed(), endpointId).sealedWith === 'current' ? true : undefined), { what: 'the secret sealed again under the new key' });
    expect(new SecretBox(newKey).open(await sealed(), endpointId)).toBe(secret);

    // The previous key removed: the receiver's secret still signs.
    workers.pop()!.kill('SIGKILL');
    workers.push(spawnWorker({ ...system.env, SIGNING_SECRET_ENCRYPTION_KEY: newKey }));
    await suggest('Signed by a worker with the new key alone');
    const received = await eventually(() => (target.received.length >= 2 ? target.received : undefined), { what: 'a delivery after the old key went', timeoutMs: 30_000 });
    expect(signedWith(received[1]!, secret)).toBe(true);
  }, 90_000);
});
