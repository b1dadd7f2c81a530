import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from '@jest/globals';
import express, { Router } from 'express';
import request from 'supertest';
import { errorHandler } from './error-handler.js';
import { readJsonBody } from './read-json-body.js';
import { namePathParameterNotText } from './refuse-unstorable-text.js';

/** A surface as the api mounts one: a route that reads its body, then the error answers. */
function surface() {
  const app = express();
  const router = Router();
  router.all('/things/:thingId', ...readJsonBody, (_request, response) => {
    response.status(201).json({ stored: true });
  });
  app.use('/v1', router);
  app.use(namePathParameterNotText(['/v1/things/{thingId}']));
  app.use(errorHandler);
  return app;
}

const post = (path: string, json: string) => request(surface()).post(path).set('content-type', 'application/json').send(json);

describe('text that cannot be stored', () => {
  it.each([
    ['a lone high surrogate', '\\ud800'],
    ['a lone low surrogate', '\\udfff'],
    ['a low surrogate before a high one', '\\udc00\\ud800'],
  ])('is refused in a body value as validation_failed naming the field: %s', async (_case, escaped) => {
    const answer = await post('/v1/things/1', `{"title": "fine", "author": {"external_id": "a${escaped}b"}}`);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({
      error: 'validation_failed',
      message: 'The request holds a lone UTF-16 surrogate at /author/external_id, which text cannot contain.',
      field: '/author/external_id',
    });
  });

  it('is refused in a body key, naming the key', async () => {
    const answer = await post('/v1/things/1', '{"answers": {"q\\ud800": "yes"}}');
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: 'validation_failed', field: '/answers/q\ud800' });
  });

  it('is refused in an array element, however deep', async () => {
    const answer = await post('/v1/things/1', `${'['.repeat(10_000)}"\\udfff"${']'.repeat(10_000)}`);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: 'validation_failed', field: `${'/0'.repeat(10_000)}` });
  });

  it('is not a surrogate pair, which is one character outside the Basic Multilingual Plane', async () => {
    const answer = await post('/v1/things/1', '{"title": "\\ud83e\\udd8a"}');
    expect(answer.status).toBe(201);
  });

  it('is refused in a query parameter whose value is not percent-encoded UTF-8, which the query parser would turn into U+FFFD', async () => {
    const answer = await request(surface()).get('/v1/things/1?limit=10&cursor=%ED%A0%80');
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({
      error: 'validation_failed',
      message: 'The request holds bytes that are not UTF-8 in the query parameter cursor, which text cannot contain.',
      field: '/cursor',
    });
  });

  it('is refused in a query parameter name that is not percent-encoded UTF-8', async () => {
    const answer = await request(surface()).get('/v1/things/1?%ED%BF%BF=1');
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: 'validation_failed', field: '/%ED%BF%BF' });
  });

  it('is refused in a path parameter that is not percent-encoded UTF-8, naming the parameter', async () => {
    const answer = await request(surface()).get('/v1/things/%ED%A0%80');
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({
      error: 'validation_failed',
      message: 'The path parameter thingId is not percent-encoded UTF-8 text.',
      field: 'thingId',
    });
  });

  it('is refused in a path parameter holding U+0000, naming the parameter', async () => {
    const answer = await request(surface()).get('/v1/things/a%00b');
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: 'validation_failed', field: 'thingId' });
  });
});

describe('a body sent as UTF-8', () => {
  it('is refused as malformed_json when its bytes are not UTF-8, instead of being read with U+FFFD in their place', async () => {
    const server = surface().listen(0);
    await once(server, 'listening');
    try {
      // A surrogate encoded as bytes, as a WTF-8 encoder would write it; sent as they are.
      const bytes = new Uint8Array([...new TextEncoder().encode('{"title": "'), 0xed, 0xa0, 0x80, ...new TextEncoder().encode('"}')]);
      const answer = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/things/1`, {
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=utf-8' },
        body: bytes,
      });
      expect(answer.status).toBe(400);
      expect(await answer.json()).toMatchObject({ error: 'malformed_json' });
    } finally {
      server.close();
    }
  });
});
