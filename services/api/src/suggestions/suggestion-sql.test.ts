import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { domainEventContract } from '@feedback/contracts';
import { createLogger } from '@feedback/logging';
import { createMigratedTestDatabase } from '@feedback/test-support';
import type { MigratedTestDatabase } from '@feedback/test-support';
import type pg from 'pg';
import winston from 'winston';
import { connectApiDatabase, migrateApiDatabase } from '../database.js';
import type { PrismaClient } from '../database.js';
import { parseListQuery } from '../pagination/list-query.js';
import { poolRunner } from '../sql/sql-runner.js';
import type { SqlRunner } from '../sql/sql-runner.js';
import { listSuggestions } from './list-suggestions.js';
import { createSuggestionRow } from './create-suggestions.js';
import { createSuggestion } from './suggestion-commands.js';
import { suggestionView } from './suggestion-view.js';

const logger = createLogger({ service: 'test', transports: [new winston.transports.Console({ silent: true })] });
let database: MigratedTestDatabase;
let prisma: PrismaClient;
let pool: pg.Pool;

beforeAll(async () => {
  database = await createMigratedTestDatabase((url) => migrateApiDatabase(url, logger));
  ({ prisma, pool } = connectApiDatabase(database.url, logger));
}, 60_000);

afterAll(async () => {
  await prisma?.$disconnect();
  await pool?.end();
  await database?.drop();
});

const app = { id: 7, public_key: 'pk_live_sqltest' };
// What JSON escapes or spells out: quotes, backslashes, control characters, U+2028, text beyond the BMP.
const awkward = 'a "quoted" \\ back\nslash\t\u0001\u001f\u007f \u2028 é 😀 </script>';

describe('suggestions as plain SQL', () => {
  it('creates the suggestion and its event in one statement, the event as writeEvent would store it and valid by its contract', async () => {
    const view = await createSuggestion(poolRunner(pool), app, { title: awkward, body: null, author: { external_id: 'user-1' } });
    const row = await prisma.suggestion.findUniqueOrThrow({ where: { id: view.id } });
    expect(view).toEqual(suggestionView(row));
    const event = await prisma.outboxEvent.findFirstOrThrow({ where: { eventType: 'suggestion.created' }, orderBy: { position: 'desc' } });
    const payload = event.payload as Record<string, unknown>;
    expect(domainEventContract.parse(payload)).toEqual({
      id: event.eventId,
      event: 'suggestion.created',
      created_at: view.created_at,
      app,
      data: { suggestion: view, author: view.author, sender: { type: 'app_user', external_id: 'user-1', name: null } },
    });
  });

  it('creates neither the suggestion nor its event when the event cannot be written', async () => {
    const before = await prisma.suggestion.count();
    // Not an app's public key: the event breaks its contract, checked before the statement.
    await expect(createSuggestion(poolRunner(pool), { id: 7, public_key: 'nope' }, { title: 'T', author: { external_id: 'u' } })).rejects.toThrow();
    expect(await prisma.suggestion.count()).toBe(before);
  });

  it('creates inside a Prisma transaction when given one, and nothing once it rolls back', async () => {
    const before = await prisma.outboxEvent.count();
    const view = await prisma.$transaction((tx) => createSuggestion(tx, app, { title: 'In a transaction', author: { external_id: 'user-2', name: 'Ann' } }));
    expect(view).toEqual(suggestionView(await prisma.suggestion.findUniqueOrThrow({ where: { id: view.id } })));
    await expect(
      prisma.$transaction(async (tx) => {
        await createSuggestion(tx, app, { title: 'Rolled back', author: { external_id: 'user-3' } });
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await prisma.suggestion.count({ where: { title: 'Rolled back' } })).toBe(0);
    expect(await prisma.outboxEvent.count()).toBe(before + 1);
  });

  it('lists the very bytes JSON.stringify gives for the views, page after page, in both orders', async () => {
    const other = { id: 8, public_key: 'pk_live_other' };
    for (let n = 0; n < 5; n += 1) {
      await createSuggestion(poolRunner(pool), other, { title: `${awkward} ${n}`, body: n % 2 === 0 ? awkward : null, author: { external_id: `user-${n}`, name: n % 2 === 0 ? 'Zoë' : null } });
    }
    // The same time for two of them: the id breaks the tie.
    await prisma.suggestion.updateMany({ where: { appId: other.id }, data: { updatedAt: new Date('2026-01-02T03:04:05.678Z') } });
    for (const query of [{ limit: '2' }, { limit: '2', updated_since: '2026-01-01T00:00:00Z' }]) {
      const expected = await prisma.suggestion.findMany({
        where: { appId: other.id },
        orderBy: query.updated_since ? [{ updatedAt: 'asc' }, { id: 'asc' }] : [{ createdAt: 'desc' }, { id: 'desc' }],
      });
      const seen: string[] = [];
      let cursor: string | null | undefined;
      do {
        const text = await listSuggestions(poolRunner(pool), other.id, parseListQuery(cursor ? { ...query, cursor } : query, { records: 'suggestions', appId: other.id }));
        const page = JSON.parse(text) as { data: unknown[]; next_cursor: string | null };
        expect(text).toBe(JSON.stringify(page));
        seen.push(...page.data.map((item) => JSON.stringify(item)));
        cursor = page.next_cursor;
      } while (cursor);
      expect(seen).toEqual(expected.map((row) => JSON.stringify(suggestionView(row))));
    }
  });

  it('gathers creates made at once into fewer statements, each suggestion with its own event, and fails only the create that breaks its statement', async () => {
    let statements = 0;
    const pooled = poolRunner(pool);
    const counting: SqlRunner = { gathers: true, rows: (statement, values) => ((statements += 1), pooled.rows(statement, values)) };
    const row = (n: number, eventId = randomUUID()) => ({
      appId: 9,
      title: `Gathered ${n}`,
      body: null,
      authorExternalId: `user-${n}`,
      authorName: null,
      eventId,
      payload: JSON.stringify({ id: eventId, event: 'suggestion.created', app: { id: 9, public_key: 'pk_live_gathered' }, data: { suggestion: { title: `Gathered ${n}` } } }),
    });
    // Made in one turn of the event loop: one statement.
    const together = Array.from({ length: 12 }, (_, n) => row(n));
    const answers = await Promise.all(together.map((each) => createSuggestionRow(counting, each)));
    expect(statements).toBe(1);
    expect(new Set(answers.map((answer) => answer.id)).size).toBe(12);
    for (const [n, answer] of answers.entries()) {
      const event = await prisma.outboxEvent.findUniqueOrThrow({ where: { eventId: together[n]!.eventId } });
      expect(event.payload).toMatchObject({ created_at: answer.created_at, data: { suggestion: { id: answer.id, title: `Gathered ${n}`, created_at: answer.created_at } } });
      expect(await prisma.suggestion.findUniqueOrThrow({ where: { id: answer.id } })).toMatchObject({ title: `Gathered ${n}` });
    }

    // The same event id twice: the statement carrying both fails, and each of its creates is tried alone.
    const rows = Array.from({ length: 6 }, (_, n) => row(20 + n));
    rows[4] = row(24, rows[3]!.eventId);
    const outcomes = await Promise.allSettled(rows.map((each) => createSuggestionRow(counting, each)));
    expect(outcomes.map((outcome) => outcome.status)).toEqual(rows.map((_, n) => (n === 4 ? 'rejected' : 'fulfilled')));
    const titles = (await prisma.suggestion.findMany({ where: { appId: 9, title: { in: rows.map((each) => each.title) } } })).map((suggestion) => suggestion.title);
    expect(titles.sort()).toEqual(rows.filter((_, n) => n !== 4).map((each) => each.title).sort());
  });
});
