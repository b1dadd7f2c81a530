import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import type { Suggestion, Ticket } from '@feedback/api-client';
import { createTestDatabase } from '@feedback/test-support';
import type { TestDatabase } from '@feedback/test-support';
import { MemoryIdempotencyStore } from '@feedback/webhook-receiver';
import type { RecoverySource, WebhookEvent } from '@feedback/webhook-receiver';
import { MemoryCheckpoint, PostgresCheckpoint } from './checkpoint.js';
import type { Checkpoint } from './checkpoint.js';
import { readConfig } from './config.js';
import { MemoryKnownStatuses, PostgresKnownStatuses } from './known-statuses.js';
import type { KnownStatuses } from './known-statuses.js';
import { createReceiver } from './receiver.js';

const POSTGRES_URL = process.env['TEST_POSTGRES_URL'] ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

/** The two lists the sweep reads, holding what the test puts in them. */
function listsHolding(suggestions: Suggestion[], tickets: Ticket[] = []): RecoverySource<Suggestion, Ticket> {
  async function* items<T>(all: T[]) {
    yield* all;
  }
  return { suggestions: { listUpdatedSince: () => items(suggestions) }, tickets: { listUpdatedSince: () => items(tickets) } };
}

const author = { external_id: 'ada', name: 'Ada' };
const suggestion = (status: string, updatedAt: string, id = 7) =>
  ({ id, title: 'Dark mode', body: null, status, author, comment_count: 0, created_at: '2026-11-01T10:00:00.000Z', updated_at: updatedAt }) as Suggestion;

function receiverWith(suggestions: Suggestion[], options: { tickets?: Ticket[]; statuses?: KnownStatuses; failNotifications?: number } = {}) {
  const checkpoint = new MemoryCheckpoint();
  const told: string[] = [];
  let failures = options.failNotifications ?? 0;
  const receiver = createReceiver({
    secret: 'whsec_test',
    idempotencyStore: new MemoryIdempotencyStore(),
    checkpoint,
    statuses: options.statuses ?? new MemoryKnownStatuses(),
    notifier: {
      notify: async (_externalId, message) => {
        if (failures > 0) {
          failures -= 1;
          throw new Error('notifier unavailable');
        }
        told.push(message);
      },
    },
    source: listsHolding(suggestions, options.tickets),
    log: () => undefined,
  });
  return { receiver, checkpoint, told };
}

const sam = { type: 'member', external_id: null, name: 'Sam' };
const app = { id: 1, public_key: 'pk_live_test' };
const suggestionMoved = (id: string, status: string, at: string, suggestionId = 7) =>
  ({
    id,
    event: 'suggestion.status_changed',
    created_at: at,
    app,
    data: { suggestion: suggestion(status, at, suggestionId), status_before: 'open', status_after: status, author, sender: sam },
  }) as unknown as WebhookEvent;
const suggestionPlanned = (id: string, suggestionId = 7) => suggestionMoved(id, 'planned', '2026-11-22T10:00:00.000Z', suggestionId);
const ticketAt = '2026-11-22T12:00:00.000Z';
const ticketSolved = {
  id: '6d1c2b3a-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
  event: 'ticket.status_changed',
  created_at: ticketAt,
  app,
  data: { ticket_id: 3, ticket_number: 'T-3', status_before: 'open', status_after: 'solved', author, sender: sam },
} as unknown as WebhookEvent;
const ticket = (updatedAt = ticketAt) => ({ id: 3, number: 'T-3', status: 'solved', author, created_at: '2026-11-20T10:00:00.000Z', updated_at: updatedAt }) as unknown as Ticket;
const since = { firstRunSince: new Date('2026-11-21T00:00:00.000Z') };

let database: TestDatabase;
let pool: pg.Pool;
beforeAll(async () => {
  database = await createTestDatabase(POSTGRES_URL);
  pool = new pg.Pool({ connectionString: database.url, max: 4 });
  pool.on('error', () => undefined);
  await new PostgresKnownStatuses(pool).createTable();
});
afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

/** An empty store for each test. */
const stores: Array<[string, () => Promise<KnownStatuses>]> = [
  ['in memory', async () => new MemoryKnownStatuses()],
  ['in PostgreSQL', async () => {
    await pool.query('TRUNCATE receiver_known_statuses');
    return new PostgresKnownStatuses(pool);
  }],
];

describe.each(stores)('status changes told to the author, known statuses %s', (_name, makeStatuses) => {
  it('tells a change on the retry when the notifier failed the first time, and once only', async () => {
    const { receiver, told } = receiverWith([], { statuses: await makeStatuses(), failNotifications: 1 });
    const event = suggestionPlanned('0b9f3c52-7d1e-4a43-9a0e-2f4d6c8b1a11');
    await expect(receiver.handleEvent(event)).rejects.toThrow(/notifier unavailable/);
    expect(told).toEqual([]);
    await receiver.handleEvent(event);
    await receiver.handleEvent(event);
    expect(told).toEqual(['Your suggestion "Dark mode" is now planned.']);
  });

  it('tells a ticket change whose webhook comes after the sweep brought the status (the sweep cannot tell who acted)', async () => {
    const { receiver, told } = receiverWith([], { statuses: await makeStatuses(), tickets: [ticket()] });
    await receiver.catchUp(since);
    expect(told).toEqual([]);
    await receiver.handleEvent(ticketSolved);
    await receiver.catchUp(since);
    expect(told).toEqual(['Your ticket T-3 is now solved.']);
  });

  it('tells a change on its retry even when a comment moved the record on meanwhile and the sweep saw it', async () => {
    const statuses = await makeStatuses();
    const failing = receiverWith([suggestion('planned', '2026-11-22T10:30:00.000Z')], { statuses, failNotifications: 1 });
    const event = suggestionPlanned('3e4f5a6b-7c8d-4e9f-8a0b-1c2d3e4f5a6b');
    await expect(failing.receiver.handleEvent(event)).rejects.toThrow(/notifier unavailable/);
    // A comment at 10:30 moved updated_at; the status is the one known: the sweep tells nothing.
    await failing.receiver.catchUp(since);
    expect(failing.told).toEqual([]);
    await failing.receiver.handleEvent(event);
    expect(failing.told).toEqual(['Your suggestion "Dark mode" is now planned.']);
  });

  it('tells a ticket change whose webhook comes after the sweep saw the ticket moved on by a later note', async () => {
    const { receiver, told } = receiverWith([], { statuses: await makeStatuses(), tickets: [ticket('2026-11-22T12:45:00.000Z')] });
    await receiver.catchUp(since);
    await receiver.handleEvent(ticketSolved);
    await receiver.handleEvent(ticketSolved);
    expect(told).toEqual(['Your ticket T-3 is now solved.']);
  });

  it('tells only the latest of changes that arrive out of order, and a status reached again after a change it missed', async () => {
    const { receiver, told } = receiverWith([], { statuses: await makeStatuses() });
    await receiver.handleEvent(suggestionMoved('4f5a6b7c-8d9e-4f0a-9b1c-2d3e4f5a6b7c', 'in_progress', '2026-11-22T11:00:00.000Z'));
    await receiver.handleEvent(suggestionMoved('5a6b7c8d-9e0f-4a1b-8c2d-3e4f5a6b7c8d', 'planned', '2026-11-22T10:00:00.000Z'));
    expect(told).toEqual(['Your suggestion "Dark mode" is now in progress.']);
    // Back to planned and on to in progress again, the first of those webhooks lost for good.
    await receiver.handleEvent(suggestionMoved('6b7c8d9e-0f1a-4b2c-9d3e-4f5a6b7c8d9e', 'in_progress', '2026-11-22T13:00:00.000Z'));
    expect(told).toEqual(['Your suggestion "Dark mode" is now in progress.', 'Your suggestion "Dark mode" is now in progress.']);
  });

  it('tells a suggestion change once, whichever of the sweep and the webhook brings it first', async () => {
    const statuses = await makeStatuses();
    // Known open, then the sweep finds it planned: told; the late webhook of that change is not.
    const before = receiverWith([suggestion('open', '2026-11-22T08:00:00.000Z')], { statuses });
    await before.receiver.catchUp(since);
    const after = receiverWith([suggestion('planned', '2026-11-22T10:00:00.000Z')], { statuses });
    await after.receiver.catchUp(since);
    await after.receiver.handleEvent(suggestionPlanned('1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f'));
    expect([...before.told, ...after.told]).toEqual(['Your suggestion "Dark mode" is now planned.']);

    // First seen by the sweep already planned (it may have been made so): nothing is told, and
    // the webhook that follows tells it.
    const firstSeen = receiverWith([suggestion('planned', '2026-11-22T10:00:00.000Z', 8)], { statuses });
    await firstSeen.receiver.catchUp(since);
    expect(firstSeen.told).toEqual([]);
    await firstSeen.receiver.handleEvent(suggestionPlanned('2d3e4f5a-6b7c-4d8e-9f0a-1b2c3d4e5f6a', 8));
    expect(firstSeen.told).toEqual(['Your suggestion "Dark mode" is now planned.']);
  });
});

describe.each([
  ['in memory', async () => new MemoryCheckpoint()],
  ['in PostgreSQL', async () => {
    const checkpoint = new PostgresCheckpoint(pool);
    await checkpoint.createTable(new Date());
    await pool.query('TRUNCATE receiver_checkpoints');
    return checkpoint;
  }],
] as Array<[string, () => Promise<Checkpoint>]>)('the checkpoint %s', (_name, makeCheckpoint) => {
  it('is none at first, then moves each list forward only', async () => {
    const checkpoint = await makeCheckpoint();
    expect(await checkpoint.read()).toBeUndefined();
    await checkpoint.advance({ suggestions: '2026-11-22T10:00:00.000Z', tickets: '2026-11-22T09:00:00.000Z' });
    // A sweep that finished later but started earlier (two instances racing) moves nothing back.
    await checkpoint.advance({ suggestions: '2026-11-22T09:30:00.000Z', tickets: '2026-11-22T11:00:00.000Z' });
    expect(await checkpoint.read()).toEqual({ suggestions: '2026-11-22T10:00:00.000Z', tickets: '2026-11-22T11:00:00.000Z' });
  });
});

describe('PostgresCheckpoint', () => {
  it('takes over the one-time checkpoint of an earlier version, no later than the first run would look back', async () => {
    await pool.query('DROP TABLE IF EXISTS receiver_checkpoints');
    await pool.query(`CREATE TABLE receiver_checkpoint (id int PRIMARY KEY CHECK (id = 1), processed_until timestamptz NOT NULL)`);
    try {
      await pool.query(`INSERT INTO receiver_checkpoint VALUES (1, '2026-11-20T08:00:00.000Z')`);
      const checkpoint = new PostgresCheckpoint(pool);
      // Down since the 20th: the old checkpoint is earlier than the first run's look-back, and wins.
      await checkpoint.createTable(new Date('2026-11-22T00:00:00.000Z'));
      expect(await checkpoint.read()).toEqual({ suggestions: '2026-11-20T08:00:00.000Z', tickets: '2026-11-20T08:00:00.000Z' });
      // Taken over once: a later start keeps what the sweeps have moved it to.
      await checkpoint.advance({ suggestions: '2026-11-23T08:00:00.000Z', tickets: '2026-11-23T09:00:00.000Z' });
      await checkpoint.createTable(new Date('2026-11-23T00:00:00.000Z'));
      expect(await checkpoint.read()).toEqual({ suggestions: '2026-11-23T08:00:00.000Z', tickets: '2026-11-23T09:00:00.000Z' });

      // A recent old checkpoint (possibly past a change in one list): each list looks back as a first run would.
      await pool.query('TRUNCATE receiver_checkpoints');
      await pool.query(`UPDATE receiver_checkpoint SET processed_until = '2026-11-23T10:00:00.000Z'`);
      await checkpoint.createTable(new Date('2026-11-22T10:00:00.000Z'));
      expect(await checkpoint.read()).toEqual({ suggestions: '2026-11-22T10:00:00.000Z', tickets: '2026-11-22T10:00:00.000Z' });
    } finally {
      await pool.query('DROP TABLE receiver_checkpoint');
    }
  });
});

describe('PostgresKnownStatuses', () => {
  it('takes over a table of an earlier version, whose changes were told as they were stored', async () => {
    await pool.query('DROP TABLE receiver_known_statuses');
    await pool.query(`CREATE TABLE receiver_known_statuses (kind text NOT NULL, id bigint NOT NULL, status text NOT NULL, updated_at timestamptz NOT NULL, PRIMARY KEY (kind, id))`);
    await pool.query(`INSERT INTO receiver_known_statuses VALUES ('suggestion', 7, 'planned', '2026-11-22T10:00:00.000Z')`);
    const statuses = new PostgresKnownStatuses(pool);
    await statuses.createTable();
    await statuses.createTable();
    const { receiver, told } = receiverWith([], { statuses });
    await receiver.handleEvent(suggestionPlanned('7c8d9e0f-1a2b-4c3d-8e4f-5a6b7c8d9e0f'));
    expect(told).toEqual([]);
    expect(await statuses.changed('suggestion', 7, 'in_progress', '2026-11-22T11:00:00.000Z')).toEqual({ status: 'in_progress', told: false });
  });
});

describe('the example receiver', () => {
  it('leaves the checkpoint to the sweep: a webhook handled says nothing about an earlier one still failing', async () => {
    const { receiver, checkpoint, told } = receiverWith([]);
    const event = {
      id: '0b9f3c52-7d1e-4a43-9a0e-2f4d6c8b1a10',
      event: 'suggestion.status_changed',
      created_at: '2026-11-22T10:00:00.000Z',
      app: { id: 1, public_key: 'pk_live_test' },
      data: {
        suggestion: suggestion('planned', '2026-11-22T10:00:00.000Z'),
        status_before: 'open',
        status_after: 'planned',
        author,
        sender: { type: 'member', external_id: null, name: 'Sam' },
      },
    } as unknown as WebhookEvent;
    await receiver.handleEvent(event);
    expect(told).toEqual(['Your suggestion "Dark mode" is now planned.']);
    expect(await checkpoint.read()).toBeUndefined();
  });

  it("moves each list's checkpoint to the latest change a sweep saw there, and never to its own clock's now", async () => {
    const firstRunSince = new Date('2026-11-21T00:00:00.000Z');
    const { receiver, checkpoint } = receiverWith([suggestion('planned', '2026-11-22T09:00:00.000Z'), suggestion('in_progress', '2026-11-22T11:00:00.000Z')]);
    await receiver.catchUp({ firstRunSince });
    // No ticket changed: that list's next sweep starts where this one did.
    expect(await checkpoint.read()).toEqual({ suggestions: '2026-11-22T11:00:00.000Z', tickets: firstRunSince.toISOString() });

    const quiet = receiverWith([]);
    await quiet.receiver.catchUp({ firstRunSince });
    expect(await quiet.checkpoint.read()).toEqual({ suggestions: firstRunSince.toISOString(), tickets: firstRunSince.toISOString() });
  });

  it('refuses a sweep interval a timer cannot hold', () => {
    const env = { FEEDBACK_WEBHOOK_SECRET: 'whsec_x', FEEDBACK_API_URL: 'https://api.example', FEEDBACK_API_KEY: 'sk_live_x' };
    expect(() => readConfig({ ...env, SWEEP_INTERVAL_SECONDS: '3000000' })).toThrow(/SWEEP_INTERVAL_SECONDS/);
    expect(readConfig({ ...env, SWEEP_INTERVAL_SECONDS: '86400' }).sweepIntervalSeconds).toBe(86_400);
  });
});
