import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Request } from 'express';
import { createLogger } from '@feedback/logging';
import { createMigratedTestDatabase } from '@feedback/test-support';
import type { MigratedTestDatabase } from '@feedback/test-support';
import winston from 'winston';
import { connectApiDatabase, migrateApiDatabase } from '../database.js';
import type { Prisma, PrismaClient } from '../database.js';
import { idempotent } from './idempotent.js';

const logger = createLogger({ service: 'test', transports: [new winston.transports.Console({ silent: true })] });
let database: MigratedTestDatabase;
let prisma: PrismaClient;
let closePool: () => Promise<void>;

beforeAll(async () => {
  database = await createMigratedTestDatabase((url) => migrateApiDatabase(url, logger));
  const connected = connectApiDatabase(database.url, logger);
  prisma = connected.prisma;
  closePool = () => connected.pool.end();
}, 60_000);

afterAll(async () => {
  await prisma?.$disconnect();
  await closePool?.();
  await database?.drop();
});

const request = { method: 'POST', baseUrl: '/api/v1', path: '/suggestions', route: { path: '/suggestions' }, body: { title: 'Again' } } as unknown as Request;

/**
 * The Prisma client, with one hook: the first time the transaction reads the key back, retention
 * pruning deletes it (committed, on another connection) just before, as it may between the two
 * statements of a claim that found the key present.
 */
function pruningBetweenClaimAndRead(key: string): PrismaClient {
  let pruned = false;
  const withPrune = (tx: Prisma.TransactionClient) =>
    new Proxy(tx, {
      get(target, property) {
        const value = Reflect.get(target, property) as unknown;
        if (property !== 'idempotencyRecord') return value;
        const records = value as Prisma.TransactionClient['idempotencyRecord'];
        return new Proxy(records, {
          get(inner, name) {
            const method = Reflect.get(inner, name) as (...args: unknown[]) => unknown;
            if (name !== 'findUnique' || pruned) return typeof method === 'function' ? method.bind(inner) : method;
            return async (...args: unknown[]) => {
              pruned = true;
              await database.pool.query('DELETE FROM api.idempotency_records WHERE key = $1', [key]);
              return method.apply(inner, args);
            };
          },
        });
      },
    });
  return { $transaction: (run: (tx: Prisma.TransactionClient) => Promise<unknown>) => prisma.$transaction((tx) => run(withPrune(tx))) } as unknown as PrismaClient;
}

describe('idempotent', () => {
  it('runs a request as new when its key, found present, was deleted by retention before it could be read', async () => {
    const key = 'pruned-meanwhile';
    await prisma.idempotencyRecord.create({ data: { appId: 1, key, requestHash: 'v2:old', responseStatus: 201, responseBody: { id: 1 } } });
    let runs = 0;
    const outcome = await idempotent(pruningBetweenClaimAndRead(key), { appId: 1, key, request }, async () => {
      runs += 1;
      return { status: 201, body: { id: 2 } };
    });
    expect(outcome).toEqual({ status: 201, body: { id: 2 } });
    expect(runs).toBe(1);
    expect(await prisma.idempotencyRecord.findUniqueOrThrow({ where: { appId_key: { appId: 1, key } } })).toMatchObject({ responseStatus: 201, responseBody: { id: 2 } });
  });
});
