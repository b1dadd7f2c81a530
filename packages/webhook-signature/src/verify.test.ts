import { createHmac, createSecretKey } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { WebhookVerificationError, generateTestHeader, sign, verify } from './index.js';
import type { WebhookVerificationReason } from './index.js';

const secret = 'whsec_6fV3m8oTQ1mYbq0x3oQx2v4uZJc8h1F2pQn7rS9tUwA';
const body = '{"id":"7d4c2b8e-2f6a-4d0e-9a51-3c1f0b6e9d42","event":"ticket.replied","data":{"body":"Merci, ça marche ✓"}}';
const t = 1_800_000_000;
const at = (seconds: number) => () => seconds * 1000;
/** The header as specification section 5 defines it, made without this library. */
const workerHeader = (rawBody: string, timestamp: number, key = secret) =>
  `t=${timestamp},v1=${createHmac('sha256', key).update(`${timestamp}.${rawBody}`).digest('hex')}`;

function reasonOf(run: () => unknown): WebhookVerificationReason | undefined {
  try {
    run();
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error.reason;
    throw error;
  }
  return undefined;
}

describe('verify', () => {
  it('accepts the test vector the docs give to receivers written without this library (the key: the whole whsec_ secret as UTF-8)', () => {
    const vector = {
      secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      // A ping as the worker sends it: PostgreSQL's text of the stored envelope (spaces after : and ,).
      body: '{"id": "6f1c2e5a-1b0d-4c1e-9a55-3d2f1e0c9b7a", "app": {"id": 4821, "public_key": "pk_live_4eC39HqLyjWDarjtT1zdp7"}, "data": {"author": {"name": "Ada Lovelace", "external_id": null}, "sender": {"name": "Ada Lovelace", "type": "member", "external_id": null}, "message": "A test delivery from the dashboard. If you can read this, your endpoint works.", "endpoint_id": "c2d4e6f8-1a3b-4c5d-9e7f-0a1b2c3d4e5f"}, "event": "webhook.ping", "created_at": "2025-11-23T12:13:20.000Z"}',
      header: 't=1763900000,v1=614df83573a3db45db2a865413b1ed84ba7de2e80e62e94cc8b74744a76256e6',
    };
    expect(verify(vector.body, vector.header, vector.secret, { now: at(1_763_900_000) })).toEqual({ timestamp: 1_763_900_000 });
    expect(sign(vector.body, vector.secret, { timestamp: 1_763_900_000 })).toBe(vector.header);
  });

  it('accepts a header made the way the worker makes it, and answers its timestamp', () => {
    expect(verify(body, workerHeader(body, t), secret, { now: at(t) })).toEqual({ timestamp: t });
  });

  it('accepts the body as a string, a Buffer or a Uint8Array of the same bytes', () => {
    const header = workerHeader(body, t);
    const bytes = Buffer.from(body, 'utf8');
    expect(() => verify(body, header, secret, { now: at(t) })).not.toThrow();
    expect(() => verify(bytes, header, secret, { now: at(t) })).not.toThrow();
    expect(() => verify(new Uint8Array(bytes), header, secret, { now: at(t) })).not.toThrow();
  });

  it('accepts what sign and generateTestHeader make', () => {
    expect(() => verify(body, sign(body, secret, { timestamp: t }), secret, { now: at(t) })).not.toThrow();
    expect(() => verify(body, generateTestHeader({ payload: body, secret }), secret)).not.toThrow();
  });

  it('refuses to sign with a time that is not whole unix seconds, which would make a header no receiver accepts', () => {
    for (const timestamp of [Date.now() / 1000 + 0.5, -1, Number.NaN]) {
      expect(() => generateTestHeader({ payload: body, secret, timestamp })).toThrow(/whole unix seconds/);
    }
  });

  it('signs with a secret given as a KeyObject exactly as with the string', () => {
    expect(sign(body, createSecretKey(Buffer.from(secret, 'utf8')), { timestamp: t })).toBe(sign(body, secret, { timestamp: t }));
  });

  it('refuses a parsed body as body_not_raw, telling to pass the raw bytes', () => {
    const run = () => verify(JSON.parse(body) as string, workerHeader(body, t), secret, { now: at(t) });
    expect(reasonOf(run)).toBe('body_not_raw');
    expect(run).toThrow(/raw request bytes.*express\.raw/);
  });

  it('refuses a secret with white space around it, saying so, rather than telling every delivery it does not match', () => {
    for (const padded of [`${secret}\n`, ` ${secret}`, `${secret}\r\n`]) {
      expect(() => verify(body, workerHeader(body, t), padded, { now: at(t) })).toThrow(/white space around it/);
    }
  });

  it('refuses an empty secret as missing_secret', () => {
    expect(reasonOf(() => verify(body, workerHeader(body, t), '', { now: at(t) }))).toBe('missing_secret');
  });

  it('refuses a missing header as malformed_header, saying it is missing', () => {
    const run = () => verify(body, undefined, secret, { now: at(t) });
    expect(reasonOf(run)).toBe('malformed_header');
    expect(run).toThrow(/missing/);
  });

  it('refuses a header sent twice as malformed_header, saying so, as an array or joined as Node joins it', () => {
    const header = workerHeader(body, t);
    for (const twice of [[header, header], `${header}, ${header}`]) {
      expect(reasonOf(() => verify(body, twice, secret, { now: at(t) }))).toBe('malformed_header');
      expect(() => verify(body, twice, secret, { now: at(t) })).toThrow(/sent more than once/);
    }
  });

  it.each([
    ['uppercase hex', (h: string) => h.toUpperCase().replace('T=', 't=').replace('V1=', 'v1=')],
    ['a letter past f at the end', (h: string) => `${h.slice(0, -1)}g`],
    ['a symbol first among the 64', (h: string) => h.replace('v1=', 'v1=/').slice(0, -1)],
    ['63 hex characters', (h: string) => h.slice(0, -1)],
    ['65 hex characters', (h: string) => `${h}0`],
    ['spaces after the comma', (h: string) => h.replace(',', ', ')],
    ['surrounding whitespace', (h: string) => ` ${h} `],
    ['another field', (h: string) => `${h},v0=abc`],
    ['fields in the other order', (h: string) => h.split(',').reverse().join(',')],
    ['another scheme', (h: string) => h.replace('v1=', 'v2=')],
    ['a non-numeric timestamp', (h: string) => h.replace(/^t=\d+/, 't=17e8')],
    ['an empty value', () => ''],
  ])('refuses a header with %s as malformed_header', (_case, alter) => {
    expect(reasonOf(() => verify(body, alter(workerHeader(body, t)), secret, { now: at(t) }))).toBe('malformed_header');
  });

  it('refuses a changed body as signature_mismatch', () => {
    const run = () => verify(body.replace('Merci', 'merci'), workerHeader(body, t), secret, { now: at(t) });
    expect(reasonOf(run)).toBe('signature_mismatch');
    expect(run).toThrow(/current signing secret/);
  });

  it('refuses another secret (a rotated one) as signature_mismatch', () => {
    expect(reasonOf(() => verify(body, workerHeader(body, t, 'whsec_previous'), secret, { now: at(t) }))).toBe('signature_mismatch');
  });

  it('refuses a signature whose timestamp was changed as signature_mismatch', () => {
    const header = workerHeader(body, t).replace(`t=${t}`, `t=${t + 1}`);
    expect(reasonOf(() => verify(body, header, secret, { now: at(t) }))).toBe('signature_mismatch');
  });

  it('refuses a signature older than 300 seconds as timestamp_out_of_tolerance', () => {
    const run = () => verify(body, workerHeader(body, t), secret, { now: at(t + 301) });
    expect(reasonOf(run)).toBe('timestamp_out_of_tolerance');
    expect(run).toThrow(/NTP/);
  });

  it('refuses a signature more than 300 seconds in the future as timestamp_out_of_tolerance', () => {
    expect(reasonOf(() => verify(body, workerHeader(body, t), secret, { now: at(t - 301) }))).toBe('timestamp_out_of_tolerance');
  });

  it('accepts a signature exactly 300 seconds old or ahead', () => {
    expect(() => verify(body, workerHeader(body, t), secret, { now: at(t + 300) })).not.toThrow();
    expect(() => verify(body, workerHeader(body, t), secret, { now: at(t - 300) })).not.toThrow();
  });

  it('takes a tighter tolerance when given one, and never a looser one than five minutes', () => {
    expect(reasonOf(() => verify(body, workerHeader(body, t), secret, { now: at(t + 61), toleranceSeconds: 60 }))).toBe('timestamp_out_of_tolerance');
    expect(() => verify(body, workerHeader(body, t), secret, { now: at(t + 60), toleranceSeconds: 60 })).not.toThrow();
    expect(() => verify(body, workerHeader(body, t), secret, { now: at(t + 600), toleranceSeconds: 900 })).toThrow(/from 0 to 300/);
  });

  it('refuses a tolerance that is not a number of seconds, or a clock that is not a time, instead of accepting any age', () => {
    const valid = workerHeader(body, t);
    for (const toleranceSeconds of [Number.NaN, Number(undefined), -1, Number.POSITIVE_INFINITY, '300' as unknown as number]) {
      expect(() => verify(body, valid, secret, { now: at(t + 10_000), toleranceSeconds })).toThrow(TypeError);
    }
    expect(() => verify(body, valid, secret, { now: () => Number.NaN })).toThrow(TypeError);
    expect(() => verify(body, valid, secret, { now: at(t), toleranceSeconds: 0 })).not.toThrow();
  });

  it('refuses bad options whatever the delivery, so the mistake shows on the first request and not only on genuine ones', () => {
    const forged = `t=${t},v1=${'0'.repeat(64)}`;
    for (const header of [forged, 'not a signature', undefined]) {
      expect(() => verify(body, header, secret, { now: at(t), toleranceSeconds: Number.NaN })).toThrow(TypeError);
      expect(() => verify(body, header, secret, { now: () => Number.NaN })).toThrow(TypeError);
    }
  });

  it('checks the signature before the age, so a forged old header is a mismatch, not a stale one', () => {
    expect(reasonOf(() => verify(body, `t=${t},v1=${'0'.repeat(64)}`, secret, { now: at(t + 10_000) }))).toBe('signature_mismatch');
  });

  it('never puts the secret in its messages', () => {
    for (const run of [
      () => verify(body, workerHeader(body, t, 'whsec_other'), secret, { now: at(t) }),
      () => verify(body, workerHeader(body, t), secret, { now: at(t + 1000) }),
      () => verify(body, 'nonsense', secret),
    ]) {
      expect(run).toThrow(WebhookVerificationError);
      try {
        run();
      } catch (error) {
        expect(String((error as Error).message)).not.toContain(secret);
      }
    }
  });
});
