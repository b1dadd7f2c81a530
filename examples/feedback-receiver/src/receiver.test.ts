import { describe, expect, it } from '@jest/globals';
import type { Suggestion, Ticket } from '@feedback/api-client';
import { MemoryIdempotencyStore } from '@feedback/webhook-receiver';
import type { RecoverySource, WebhookEvent } from '@feedback/webhook-receiver';
import { MemoryCheckpoint } from './checkpoint.js';
import { readConfig } from './config.js';
import { MemoryKnownStatuses } from './known-statuses.js';
import { createReceiver } from './receiver.js';

/** The two lists the sweep reads, holding what the test puts in them. */
function listsHolding(suggestions: Suggestion[]): RecoverySource<Suggestion, Ticket> {
  async function* items<T>(all: T[]) {
    yield* all;
  }
  return { suggestions: { listUpdatedSince: () => items(suggestions) }, tickets: { listUpdatedSince: () => items<Ticket>([]) } };
}

const author = { external_id: 'ada', name: 'Ada' };
const suggestion = (status: string, updatedAt: string) =>
  ({ id: 7, title: 'Dark mode', body: null, status, author, comment_count: 0, created_at: '2026-11-01T10:00:00.000Z', updated_at: updatedAt }) as Suggestion;

function receiverWith(suggestions: Suggestion[]) {
  const checkpoint = new MemoryCheckpoint();
  const told: string[] = [];
  const receiver = createReceiver({
    secret: 'whsec_test',
    idempotencyStore: new MemoryIdempotencyStore(),
    checkpoint,
    statuses: new MemoryKnownStatuses(),
    notifier: { notify: async (_externalId, message) => void told.push(message) },
    source: listsHolding(suggestions),
    log: () => undefined,
  });
  return { receiver, checkpoint, told };
}

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

  it('moves the checkpoint to the latest change a sweep saw, and not at all by its own clock when none changed', async () => {
    const firstRunSince = new Date('2026-11-21T00:00:00.000Z');
    const { receiver, checkpoint } = receiverWith([suggestion('planned', '2026-11-22T09:00:00.000Z'), suggestion('in_progress', '2026-11-22T11:00:00.000Z')]);
    await receiver.catchUp({ firstRunSince });
    expect(await checkpoint.read()).toEqual(new Date('2026-11-22T11:00:00.000Z'));

    const quiet = receiverWith([]);
    await quiet.receiver.catchUp({ firstRunSince });
    expect(await quiet.checkpoint.read()).toBeUndefined();
  });

  it('refuses a sweep interval a timer cannot hold', () => {
    const env = { FEEDBACK_WEBHOOK_SECRET: 'whsec_x', FEEDBACK_API_URL: 'https://api.example', FEEDBACK_API_KEY: 'sk_live_x' };
    expect(() => readConfig({ ...env, SWEEP_INTERVAL_SECONDS: '3000000' })).toThrow(/SWEEP_INTERVAL_SECONDS/);
    expect(readConfig({ ...env, SWEEP_INTERVAL_SECONDS: '86400' }).sweepIntervalSeconds).toBe(86_400);
  });
});
