import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createLogger } from '@feedback/logging';
import { createMigratedTestDatabase } from '@feedback/test-support';
import type { MigratedTestDatabase } from '@feedback/test-support';
import winston from 'winston';
import { migrateWorkerDatabase } from '../database.js';
import type { Logger } from '@feedback/logging';
import { resealSigningSecrets, signingSecretResealing } from './reseal-signing-secrets.js';
import { SecretBox, generateSigningSecret } from './signing-secrets.js';
import { insertEndpoint } from '../testing/endpoint-rows.js';

const newKey = () => randomBytes(32).toString('base64');

describe('SecretBox', () => {
  const previousKey = newKey();
  const currentKey = newKey();

  it('seals a secret so that the stored text shows nothing of it, and opens it again', () => {
    const secret = generateSigningSecret();
    const box = new SecretBox(currentKey);
    const sealed = box.seal(secret);
    expect(sealed).not.toContain(secret.slice('whsec_'.length, 20));
    expect(box.open(sealed)).toBe(secret);
  });

  it('opens, after a key change, what the previous key sealed, and seals only under the current key', () => {
    const secret = generateSigningSecret();
    const sealedBefore = new SecretBox(previousKey).seal(secret);
    const box = new SecretBox(currentKey, [previousKey]);
    expect(box.open(sealedBefore)).toBe(secret);
    expect(box.inspect(sealedBefore)).toEqual({ sealedWith: 'previous', secret });
    const sealedAgain = box.seal(secret);
    expect(box.inspect(sealedAgain)).toEqual({ sealedWith: 'current' });
    // Once every secret is sealed again, the previous key may go.
    expect(new SecretBox(currentKey).open(sealedAgain)).toBe(secret);
    expect(() => new SecretBox(previousKey).open(sealedAgain)).toThrow(/opened by no configured key/);
  });

  it('says which secrets no key it has opens, and refuses to open them', () => {
    const sealedElsewhere = new SecretBox(newKey()).seal(generateSigningSecret());
    const box = new SecretBox(currentKey, [previousKey]);
    expect(box.inspect(sealedElsewhere)).toEqual({ sealedWith: 'unreadable' });
    expect(() => box.open(sealedElsewhere)).toThrow(/SIGNING_SECRET_PREVIOUS_KEYS/);
    // Nor what is no sealed secret at all: counted, not a failure of the whole re-sealing.
    expect(box.inspect('sealed')).toEqual({ sealedWith: 'unreadable' });
  });

  it("seals a secret for its endpoint: copied into another endpoint's row, it opens for no other", () => {
    const secret = generateSigningSecret();
    const box = new SecretBox(currentKey);
    const sealed = box.seal(secret, '6f1c1c52-7a0e-4d3c-9a55-2b1f6c3e8d11');
    expect(box.open(sealed, '6f1c1c52-7a0e-4d3c-9a55-2b1f6c3e8d11')).toBe(secret);
    expect(() => box.open(sealed, '00000000-0000-4000-8000-000000000000')).toThrow(/opened by no configured key/);
    expect(() => box.open(sealed)).toThrow(/opened by no configured key/);
    expect(box.inspect(sealed, '00000000-0000-4000-8000-000000000000')).toEqual({ sealedWith: 'unreadable' });
  });

  it('opens a secret sealed before endpoints were bound, and says it is to be sealed again for its endpoint', () => {
    const secret = generateSigningSecret();
    const box = new SecretBox(currentKey);
    const unbound = box.seal(secret);
    expect(box.open(unbound, '6f1c1c52-7a0e-4d3c-9a55-2b1f6c3e8d11')).toBe(secret);
    expect(box.inspect(unbound, '6f1c1c52-7a0e-4d3c-9a55-2b1f6c3e8d11')).toEqual({ sealedWith: 'previous', secret });
    expect(box.inspect(box.seal(secret, '6f1c1c52-7a0e-4d3c-9a55-2b1f6c3e8d11'), '6f1c1c52-7a0e-4d3c-9a55-2b1f6c3e8d11')).toEqual({ sealedWith: 'current' });
  });

  it('opens a secret only with its whole tag: a tag cut short, which GCM would take, is refused', () => {
    const box = new SecretBox(currentKey);
    const [version, iv, tag, sealed] = box.seal(generateSigningSecret()).split('.');
    const cutShort = [version, iv, Buffer.from(tag!, 'base64').subarray(0, 4).toString('base64'), sealed].join('.');
    expect(() => box.open(cutShort)).toThrow(/opened by no configured key/);
    expect(box.inspect(cutShort)).toEqual({ sealedWith: 'unreadable' });
  });
});

describe('resealSigningSecrets', () => {
  const logger = createLogger({ service: 'test', transports: [new winston.transports.Console({ silent: true })] });
  let database: MigratedTestDatabase;

  beforeAll(async () => {
    database = await createMigratedTestDatabase((url) => migrateWorkerDatabase(url, logger));
  }, 60_000);

  afterAll(async () => {
    await database?.drop();
  });

  async function endpointSealed(sealed: string): Promise<string> {
    return insertEndpoint(database.pool, { sealedSecret: sealed });
  }
  const stored = async (id: string) =>
    (await database.pool.query<{ secret_encrypted: string; updated_at: Date }>('SELECT secret_encrypted, updated_at FROM webhooks.webhook_endpoints WHERE id = $1', [id])).rows[0]!;

  it('seals again under the current key every secret a previous key sealed, so the previous key can go, and counts those no key opens', async () => {
    const previousKey = newKey();
    const currentKey = newKey();
    const secrets = new Map<string, string>();
    // More than one batch of 500.
    for (let n = 0; n < 520; n += 1) {
      const secret = generateSigningSecret();
      secrets.set(await endpointSealed(new SecretBox(n % 4 === 0 ? currentKey : previousKey).seal(secret)), secret);
    }
    const lost = await endpointSealed(new SecretBox(newKey()).seal(generateSigningSecret()));
    const updatedBefore = (await stored([...secrets.keys()][1]!)).updated_at;

    const box = new SecretBox(currentKey, [previousKey]);
    // Every one: those the current key sealed too, which were sealed for no endpoint.
    expect(await resealSigningSecrets(database.pool, box)).toEqual({ resealed: 520, unreadable: 1 });
    const currentOnly = new SecretBox(currentKey);
    for (const [id, secret] of secrets) expect(currentOnly.open((await stored(id)).secret_encrypted, id)).toBe(secret);
    expect((await stored([...secrets.keys()][1]!)).updated_at).toEqual(updatedBefore);
    // Run again (another worker, the next interval): nothing left to do.
    expect(await resealSigningSecrets(database.pool, box)).toEqual({ resealed: 0, unreadable: 1 });
    expect(box.inspect((await stored(lost)).secret_encrypted)).toEqual({ sealedWith: 'unreadable' });
    await database.pool.query('DELETE FROM webhooks.webhook_endpoints');
  });

  it('leaves a secret rotated since it was read: the rotation stands', async () => {
    const previousKey = newKey();
    const currentKey = newKey();
    const id = await endpointSealed(new SecretBox(previousKey).seal(generateSigningSecret()));
    const rotated = new SecretBox(currentKey).seal(generateSigningSecret());
    // The rotation lands between the re-seal's read and its write.
    const pool = database.pool;
    const racing = Object.create(pool) as typeof pool;
    racing.query = (async (...args: Parameters<typeof pool.query>) => {
      const text = typeof args[0] === 'string' ? args[0] : '';
      if (text.includes('UPDATE webhooks.webhook_endpoints e')) await pool.query('UPDATE webhooks.webhook_endpoints SET secret_encrypted = $1 WHERE id = $2', [rotated, id]);
      return (pool.query as (...a: unknown[]) => unknown)(...args);
    }) as typeof pool.query;
    expect(await resealSigningSecrets(racing, new SecretBox(currentKey, [previousKey]))).toEqual({ resealed: 0, unreadable: 0 });
    expect((await stored(id)).secret_encrypted).toBe(rotated);
    await pool.query('DELETE FROM webhooks.webhook_endpoints');
  });

  it('says at start-up, as an error, how many secrets the configured keys do not open (a key changed without the old one kept)', async () => {
    await endpointSealed(new SecretBox(newKey()).seal(generateSigningSecret()));
    await endpointSealed(new SecretBox(newKey()).seal(generateSigningSecret()));
    const lines: Array<{ level: string; message: string; meta?: Record<string, unknown> }> = [];
    const at = (level: string) => (message: string, meta?: Record<string, unknown>) => void lines.push({ level, message, meta });
    const recording = { info: at('info'), warn: at('warn'), error: at('error'), debug: at('debug') } as unknown as Logger;
    const task = signingSecretResealing(database.pool, new SecretBox(newKey()), recording);
    task.start();
    const deadline = Date.now() + 10_000;
    while (lines.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    await task.stop();
    expect(lines).toEqual([expect.objectContaining({ level: 'error', meta: { unreadable: 2, resealed: 0 } })]);
    expect(lines[0]!.message).toContain('SIGNING_SECRET_PREVIOUS_KEYS');
    await database.pool.query('DELETE FROM webhooks.webhook_endpoints');
  });
});
