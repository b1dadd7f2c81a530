import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import express from 'express';
import { createLogger } from '@feedback/logging';
import { postgresError } from '@feedback/test-support';
import pg from 'pg';
import request from 'supertest';
import winston from 'winston';
import { errorHandler } from './error-handler.js';

const postgresUrl = process.env['TEST_POSTGRES_URL'] ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const logger = createLogger({ service: 'test', transports: [new winston.transports.Console({ silent: true })] });
let client: pg.Client;

beforeAll(async () => {
  client = new pg.Client({ connectionString: postgresUrl });
  await client.connect();
});

afterAll(async () => {
  await client.end();
});

const failure = (condition: string) => postgresError(client, condition);

/** An app whose one route fails with `error`, answered by the error handler. */
function failingWith(error: unknown) {
  const app = express();
  app.use((incoming, _response, next) => {
    incoming.log = logger;
    next();
  });
  app.get('/', () => {
    throw error;
  });
  app.use(errorHandler);
  return app;
}

describe('errorHandler', () => {
  it.each(['deadlock_detected', 'serialization_failure'])('answers a transaction PostgreSQL ended (%s) with 503 and Retry-After, not 500', async (condition) => {
    const answer = await request(failingWith(await failure(condition))).get('/');
    expect(answer.status).toBe(503);
    expect(answer.headers['retry-after']).toBe('1');
    expect(answer.body).toMatchObject({ error: 'service_unavailable' });
  });

  it('answers 503 with Retry-After, not 500, when the database was not there for the request', async () => {
    const unreachable = new pg.Client({ connectionString: 'postgresql://postgres@127.0.0.1:1/postgres' });
    for (const error of [await unreachable.connect().catch((caught: unknown) => caught), new Error('timeout exceeded when trying to connect'), await failure('admin_shutdown')]) {
      const answer = await request(failingWith(error)).get('/');
      expect({ status: answer.status, retryAfter: answer.headers['retry-after'], error: answer.body.error }).toEqual({ status: 503, retryAfter: '1', error: 'service_unavailable' });
    }
  });

  it('answers the same through Prisma, whose driver adapter carries the SQLSTATE', async () => {
    const prismaError = Object.assign(new Error('Transaction failed due to a write conflict or a deadlock.'), {
      code: 'P2034',
      meta: { driverAdapterError: { cause: { originalCode: '40P01', kind: 'TransactionWriteConflict' } } },
    });
    expect((await request(failingWith(prismaError)).get('/')).status).toBe(503);
  });

  it('answers any other database failure 500 internal_error, saying nothing of it', async () => {
    const answer = await request(failingWith(await failure('unique_violation'))).get('/');
    expect(answer.status).toBe(500);
    expect(answer.body).toEqual({ error: 'internal_error', message: 'Something went wrong on our side. Retry later.' });
  });
});

describe('errorHandler, a body that breaks its contract many times over', () => {
  it('lists the first 20 violations and says how many more, rather than answer one line per unknown field', async () => {
    const { defineContract } = await import('@feedback/contracts');
    const contract = defineContract('many-fields-probe', { type: 'object', additionalProperties: false, properties: {} } as const);
    const body = Object.fromEntries(Array.from({ length: 20_000 }, (_, n) => [`field${n}`, n]));
    let violation: unknown;
    try {
      contract.parse(body);
    } catch (error) {
      violation = error;
    }
    const answer = await request(failingWith(violation)).get('/');
    expect(answer.status).toBe(400);
    expect(answer.body.violations).toHaveLength(20);
    expect(answer.body.violations_omitted).toBe(19_980);
  });
});
