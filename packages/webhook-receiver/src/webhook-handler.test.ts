import { describe, expect, it } from '@jest/globals';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import request from 'supertest';
import { generateTestHeader } from '@feedback/webhook-signature';
import { webhookMiddleware } from './express-middleware.js';
import { MemoryIdempotencyStore } from './memory-idempotency-store.js';
import { asKnownEvent, constructEvent, parseEvent } from './parse-event.js';
import type { UnknownWebhookEvent, WebhookEvent } from './events.js';
import { IdempotencyStoreError, UnmarkedDeliveryError, createWebhookHandler } from './webhook-handler.js';

const secret = 'whsec_receiver_test_secret_0123456789abcdefghij';
const ada = { external_id: 'user-ada', name: 'Ada' };
const envelope = (id = 'b6c1e3c4-9d1e-4c55-8a7e-1f1d7a0e5c11', event = 'ticket.replied') =>
  JSON.stringify({
    id,
    event,
    created_at: '2026-11-22T10:00:00.000Z',
    app: { id: 7, public_key: 'pk_live_abc' },
    data: { ticket_id: 1, ticket_number: 'T-1', message_id: 2, sender_type: 'agent', body: 'Fixed', author: ada, sender: { type: 'member', external_id: null, name: 'Sam' } },
  });
const signed = (body: string) => ({ 'x-service-signature': generateTestHeader({ payload: body, secret }), 'x-service-delivery': JSON.parse(body).id as string });

describe('parseEvent and constructEvent', () => {
  it('give a typed event whose data matches its name', () => {
    const body = envelope();
    const event = constructEvent(body, signed(body)['x-service-signature'], secret);
    const known = asKnownEvent(event);
    expect(known?.event).toBe('ticket.replied');
    if (known?.event === 'ticket.replied') {
      // Type-checked: ticket_number exists on ticket.replied's data.
      const number: string = known.data.ticket_number;
      expect(number).toBe('T-1');
    }
  });

  it('pass an event newer than the library through as an unknown event', () => {
    const event = parseEvent(envelope(undefined, 'ticket.merged'));
    expect(asKnownEvent(event)).toBeUndefined();
    expect(event.event).toBe('ticket.merged');
  });

  it('refuse a body that is not an envelope with malformed_payload', () => {
    expect(() => parseEvent('{"hello":1}')).toThrow(expect.objectContaining({ code: 'malformed_payload' }));
    expect(() => parseEvent('not json')).toThrow(expect.objectContaining({ code: 'malformed_payload' }));
  });
});

describe('createWebhookHandler', () => {
  const handled: Array<WebhookEvent | UnknownWebhookEvent> = [];
  const make = (onEvent: (event: WebhookEvent | UnknownWebhookEvent) => Promise<void> = async (event) => void handled.push(event)) =>
    createWebhookHandler({ secret, onEvent, idempotencyStore: new MemoryIdempotencyStore(), onError: () => undefined });

  it('answers 200 and calls the handler for a verified delivery', async () => {
    const body = envelope();
    expect(await make().handle({ rawBody: body, headers: signed(body) })).toEqual({ status: 200, body: { received: true } });
  });

  it('refuses at creation a missing secret (an unset variable), rather than answering 400 to every delivery', () => {
    for (const missing of ['', undefined]) {
      expect(() => createWebhookHandler({ secret: missing as unknown as string, onEvent: () => undefined })).toThrow(/whsec_/);
    }
  });

  it('refuses at creation a secret with white space around it (a newline kept from a secret file)', () => {
    expect(() => createWebhookHandler({ secret: `${secret}\n`, onEvent: () => undefined })).toThrow(/white space around it/);
  });

  it('refuses at creation a tolerance that is not a number of seconds (an unset variable read as a number)', () => {
    expect(() => createWebhookHandler({ secret, onEvent: () => undefined, toleranceSeconds: Number(undefined) })).toThrow(TypeError);
    expect(() => createWebhookHandler({ secret, onEvent: () => undefined, toleranceSeconds: -5 })).toThrow(/toleranceSeconds/);
  });

  it('answers 400 with the verification reason for a bad signature', async () => {
    const body = envelope();
    const answer = await make().handle({ rawBody: body.replace('Fixed', 'Broken'), headers: signed(body) });
    expect(answer).toMatchObject({ status: 400, body: { error: 'signature_mismatch' } });
  });

  it('answers 400 delivery_id_mismatch when the delivery header and the body disagree', async () => {
    const body = envelope();
    const answer = await make().handle({ rawBody: body, headers: { ...signed(body), 'x-service-delivery': 'another' } });
    expect(answer).toMatchObject({ status: 400, body: { error: 'delivery_id_mismatch' } });
  });

  it('skips a duplicate without calling the handler again', async () => {
    let calls = 0;
    const handler = make(async () => void (calls += 1));
    const body = envelope();
    await handler.handle({ rawBody: body, headers: signed(body) });
    expect(await handler.handle({ rawBody: body, headers: signed(body) })).toEqual({ status: 200, body: { received: true, duplicate: true } });
    expect(calls).toBe(1);
  });

  it('answers 409, not 200, while the same delivery is being handled by another attempt', async () => {
    let finish: () => void = () => undefined;
    const handler = make(() => new Promise<void>((resolve) => (finish = resolve)));
    const body = envelope();
    const first = handler.handle({ rawBody: body, headers: signed(body) });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await handler.handle({ rawBody: body, headers: signed(body) })).toMatchObject({ status: 409, body: { error: 'delivery_in_progress' } });
    finish();
    expect((await first).status).toBe(200);
  });

  it('does not release a claim its lease outlived when the handler fails: another attempt may hold it by now', async () => {
    let clock = Date.now();
    const store = new MemoryIdempotencyStore({ leaseMs: 1000, now: () => clock });
    const body = envelope('8d9e0f1a-2b3c-4d4e-9f5a-6b7c8d9e0f1a');
    let slowOne = true;
    const handler = createWebhookHandler({
      secret,
      idempotencyStore: store,
      now: () => clock,
      onError: () => undefined,
      onEvent: async () => {
        if (!slowOne) return new Promise<void>(() => undefined); // the second attempt is still at work
        slowOne = false;
        clock += 1500; // the first ran past its lease: the sender's retry arrived and took it over
        void handler.handle({ rawBody: body, headers: signed(body) });
        await new Promise((resolve) => setImmediate(resolve));
        throw new Error('gave up');
      },
    });
    expect(await handler.handle({ rawBody: body, headers: signed(body) })).toMatchObject({ status: 500 });
    // The retry's claim stands: a third attempt is told it is in progress, not handled beside it.
    expect(await store.claim(JSON.parse(body).id as string)).toBe('in_progress');
  });

  it('tells onError what the handler threw, with the event', async () => {
    const seen: Array<[string, string]> = [];
    const handler = createWebhookHandler({
      secret,
      onEvent: () => {
        throw new Error('database away');
      },
      onError: (error, event) => void seen.push([(error as Error).message, event.id]),
    });
    const body = envelope('9e0f1a2b-3c4d-4e5f-8a6b-7c8d9e0f1a2b');
    expect(await handler.handle({ rawBody: body, headers: signed(body) })).toMatchObject({ status: 500, body: { error: 'handler_failed' } });
    expect(seen).toEqual([['database away', '9e0f1a2b-3c4d-4e5f-8a6b-7c8d9e0f1a2b']]);
  });

  it('answers 200 to a delivery handled but not marked done (the store failed), telling onError, so the sender does not run it again', async () => {
    const store = new MemoryIdempotencyStore();
    const unavailable = new Error('connection terminated');
    store.complete = () => Promise.reject(unavailable);
    const seen: unknown[] = [];
    let calls = 0;
    const handler = createWebhookHandler({ secret, idempotencyStore: store, onEvent: () => void (calls += 1), onError: (error) => void seen.push(error) });
    const body = envelope('0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d');
    expect(await handler.handle({ rawBody: body, headers: signed(body) })).toEqual({ status: 200, body: { received: true } });
    expect(calls).toBe(1);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toBeInstanceOf(UnmarkedDeliveryError);
    expect((seen[0] as Error).cause).toBe(unavailable);
  });

  it('answers 503 store_unavailable, without calling the handler, when the store cannot claim the delivery; and 500 when it cannot release a failed one', async () => {
    const store = new MemoryIdempotencyStore();
    const unavailable = new Error('connection refused');
    store.claim = () => Promise.reject(unavailable);
    const seen: unknown[] = [];
    let calls = 0;
    const handler = createWebhookHandler({ secret, idempotencyStore: store, onEvent: () => void (calls += 1), onError: (error) => void seen.push(error) });
    const body = envelope('1b2c3d4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e');
    expect(await handler.handle({ rawBody: body, headers: signed(body) })).toMatchObject({ status: 503, body: { error: 'store_unavailable' } });
    expect(calls).toBe(0);
    expect(seen).toEqual([expect.any(IdempotencyStoreError)]);
    expect(seen[0]).toMatchObject({ step: 'claim', cause: unavailable });

    const releasing = new MemoryIdempotencyStore();
    releasing.release = () => Promise.reject(unavailable);
    const failed = new Error('handler down');
    const reported: unknown[] = [];
    const failing = createWebhookHandler({ secret, idempotencyStore: releasing, onEvent: () => Promise.reject(failed), onError: (error) => void reported.push(error) });
    expect(await failing.handle({ rawBody: body, headers: signed(body) })).toMatchObject({ status: 500, body: { error: 'handler_failed' } });
    expect(reported).toEqual([failed, expect.any(IdempotencyStoreError)]);
    expect(reported[1]).toMatchObject({ step: 'release', cause: unavailable });
  });

  it('answers 500 when the handler throws, and handles the retry', async () => {
    let fail = true;
    const handler = make(async () => {
      if (fail) throw new Error('database down');
    });
    const body = envelope();
    expect(await handler.handle({ rawBody: body, headers: signed(body) })).toMatchObject({ status: 500, body: { error: 'handler_failed' } });
    fail = false;
    expect(await handler.handle({ rawBody: body, headers: signed(body) })).toEqual({ status: 200, body: { received: true } });
  });
});

describe('webhookMiddleware', () => {
  function app(parseJsonFirst = false, maxBodyBytes?: number) {
    const events: string[] = [];
    const server = express();
    if (parseJsonFirst) server.use(express.json());
    server.post('/hooks', webhookMiddleware({ secret, idempotencyStore: new MemoryIdempotencyStore(), onEvent: (event) => void events.push(event.id), maxBodyBytes }));
    return { server, events };
  }

  it('answers 413 body_too_large to a body over maxBodyBytes, declared or not, without calling the handler', async () => {
    const body = envelope();
    const { server, events } = app(false, body.length - 1);
    const declared = await request(server).post('/hooks').set('content-type', 'application/json').set(signed(body)).send(body);
    expect(declared.status).toBe(413);
    expect(declared.body).toMatchObject({ error: 'body_too_large' });

    // Chunked, with no length up front: reading stops at the limit.
    const listening = server.listen(0);
    try {
      const { port } = listening.address() as AddressInfo;
      const chunked = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const sending = httpRequest({ port, method: 'POST', path: '/hooks', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked', ...signed(body) } }, (answer) => {
          let text = '';
          answer.on('data', (chunk: Buffer) => (text += chunk.toString()));
          answer.on('end', () => resolve({ status: answer.statusCode!, body: text }));
        });
        sending.on('error', reject);
        sending.write(body.slice(0, 100));
        sending.end(body.slice(100));
      });
      expect(chunked.status).toBe(413);
      expect(JSON.parse(chunked.body)).toMatchObject({ error: 'body_too_large' });
    } finally {
      listening.close();
    }
    expect(events).toEqual([]);

    // At the limit exactly, it is read and handled.
    const fits = app(false, body.length);
    expect((await request(fits.server).post('/hooks').set('content-type', 'application/json').set(signed(body)).send(body)).status).toBe(200);
    expect(fits.events).toHaveLength(1);
    expect(() => webhookMiddleware({ secret, idempotencyStore: new MemoryIdempotencyStore(), onEvent: () => undefined, maxBodyBytes: Number.NaN })).toThrow(/maxBodyBytes/);
  });

  it('verifies the raw body it reads itself and calls the handler', async () => {
    const { server, events } = app();
    const body = envelope();
    const answer = await request(server).post('/hooks').set('content-type', 'application/json').set(signed(body)).send(body);
    expect(answer.status).toBe(200);
    expect(events).toEqual([JSON.parse(body).id]);
  });

  it('answers 400 body_not_raw when express.json parsed the body first, saying where to mount it', async () => {
    const { server, events } = app(true);
    const body = envelope();
    const answer = await request(server).post('/hooks').set('content-type', 'application/json').set(signed(body)).send(body);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: 'body_not_raw', message: expect.stringMatching(/before express\.json/) });
    expect(events).toEqual([]);
  });

  it('answers a duplicate 200 without calling the handler twice', async () => {
    const { server, events } = app();
    const body = envelope('5f0e3a1c-0a6b-4d5e-9a8b-7c6d5e4f3a2b');
    await request(server).post('/hooks').set('content-type', 'application/json').set(signed(body)).send(body);
    const again = await request(server).post('/hooks').set('content-type', 'application/json').set(signed(body)).send(body);
    expect(again.body).toEqual({ received: true, duplicate: true });
    expect(events).toHaveLength(1);
  });
});
