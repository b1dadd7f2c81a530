import { describe, expect, it } from '@jest/globals';
import { RecoveryError, recoverMissedWebhooks } from './recover-missed-webhooks.js';
import type { RecoveryCheckpoint } from './recover-missed-webhooks.js';
import { shouldNotifyAuthor } from './should-notify-author.js';

const ada = { external_id: 'user-ada', name: 'Ada' };

describe('shouldNotifyAuthor', () => {
  it('is true when a member acted on the author’s record', () => {
    expect(shouldNotifyAuthor({ data: { author: ada, sender: { type: 'member', external_id: null } } })).toBe(true);
  });

  it('is true when another end user acted', () => {
    expect(shouldNotifyAuthor({ data: { author: ada, sender: { type: 'app_user', external_id: 'user-bob' } } })).toBe(true);
  });

  it('is false when the author acted themself', () => {
    expect(shouldNotifyAuthor({ data: { author: ada, sender: { type: 'app_user', external_id: 'user-ada' } } })).toBe(false);
  });

  it('is false when the record has no known author', () => {
    expect(shouldNotifyAuthor({ data: { author: { external_id: null }, sender: { type: 'member', external_id: null } } })).toBe(false);
  });
});

describe('recoverMissedWebhooks', () => {
  // A source that serves pages of two, as the API's lists do, and notes where each sweep began.
  function pagedSource<T extends { updated_at: string }>(items: T[], starts: Date[]) {
    return {
      async *listUpdatedSince(since: Date) {
        starts.push(since);
        const wanted = items.filter((item) => Date.parse(item.updated_at) >= since.getTime());
        for (let page = 0; page < wanted.length; page += 2) {
          await new Promise((resolve) => setImmediate(resolve));
          yield* wanted.slice(page, page + 2);
        }
      },
    };
  }

  it('sweeps both lists through every page from a minute before the last webhook, and answers a checkpoint', async () => {
    const starts: Date[] = [];
    const suggestions = ['10:00:30', '10:01:00', '10:02:00', '10:03:00', '10:04:00'].map((time, id) => ({ id, updated_at: `2026-11-22T${time}.000Z` }));
    const tickets = ['09:00:00', '10:05:00'].map((time, id) => ({ id, updated_at: `2026-11-22T${time}.000Z` }));
    const seen: string[] = [];
    const result = await recoverMissedWebhooks({
      since: new Date('2026-11-22T10:01:00.000Z'),
      source: { suggestions: pagedSource(suggestions, starts), tickets: pagedSource(tickets, starts) },
      onSuggestion: (suggestion) => void seen.push(`s${suggestion.id}`),
      onTicket: (ticket) => void seen.push(`t${ticket.id}`),
    });
    expect(starts.map((start) => start.toISOString())).toEqual(['2026-11-22T10:00:00.000Z', '2026-11-22T10:00:00.000Z']);
    expect(seen).toEqual(['s0', 's1', 's2', 's3', 's4', 't1']);
    expect(result).toEqual({ suggestions: 5, tickets: 1, checkpoint: { suggestions: '2026-11-22T10:04:00.000Z', tickets: '2026-11-22T10:05:00.000Z' } });
  });

  it('keeps a checkpoint per list: a suggestion changed while the tickets were read is swept next time', async () => {
    const starts: Date[] = [];
    const suggestions = [{ id: 1, updated_at: '2026-11-22T10:00:00.000Z' }];
    const tickets = [{ id: 1, updated_at: '2026-11-22T10:00:00.000Z' }];
    const sweep = (since: RecoveryCheckpoint | Date) =>
      recoverMissedWebhooks({
        since,
        source: { suggestions: pagedSource(suggestions, starts), tickets: pagedSource(tickets, starts) },
        onSuggestion: (suggestion) => {
          // Once the suggestions are read, one changes (10:10), and then a ticket (10:20) that
          // the sweep of tickets, still to come, brings.
          if (suggestion.id === 1 && suggestions.length === 1) {
            suggestions.push({ id: 2, updated_at: '2026-11-22T10:10:00.000Z' });
            tickets.push({ id: 2, updated_at: '2026-11-22T10:20:00.000Z' });
          }
        },
        onTicket: () => undefined,
      });
    const first = await sweep(new Date('2026-11-22T09:00:00.000Z'));
    expect(first.checkpoint).toEqual({ suggestions: '2026-11-22T10:00:00.000Z', tickets: '2026-11-22T10:20:00.000Z' });
    const seen: number[] = [];
    const second = await recoverMissedWebhooks({
      since: JSON.parse(JSON.stringify(first.checkpoint)) as RecoveryCheckpoint,
      source: { suggestions: pagedSource(suggestions, starts), tickets: pagedSource([], starts) },
      onSuggestion: (suggestion) => void seen.push(suggestion.id),
      onTicket: () => undefined,
    });
    // One shared checkpoint (10:20) would have started the suggestions at 10:19 and missed the 10:10 change.
    expect(seen).toEqual([1, 2]);
    expect(second.checkpoint).toEqual({ suggestions: '2026-11-22T10:10:00.000Z', tickets: '2026-11-22T10:20:00.000Z' });
  });

  it('refuses a checkpoint that names no time, rather than sweeping from nowhere', async () => {
    await expect(
      recoverMissedWebhooks({
        since: { suggestions: 'yesterday', tickets: '2026-11-22T10:00:00.000Z' },
        source: { suggestions: pagedSource([], []), tickets: pagedSource([], []) },
        onSuggestion: () => undefined,
        onTicket: () => undefined,
      }),
    ).rejects.toThrow(TypeError);
  });

  it('keeps what was handled before a failure: the error carries the checkpoint, and the other list is swept all the same', async () => {
    const starts: Date[] = [];
    const suggestions = ['10:01:00', '10:02:00', '10:03:00'].map((time, id) => ({ id, updated_at: `2026-11-22T${time}.000Z` }));
    const tickets = [{ id: 9, updated_at: '2026-11-22T10:05:00.000Z' }];
    const seen: string[] = [];
    const down = new Error('down');
    const failed = await recoverMissedWebhooks({
      since: new Date('2026-11-22T10:00:00.000Z'),
      source: { suggestions: pagedSource(suggestions, starts), tickets: pagedSource(tickets, starts) },
      onSuggestion: (suggestion) => {
        if (suggestion.id === 2) throw down;
        seen.push(`s${suggestion.id}`);
      },
      onTicket: (ticket) => void seen.push(`t${ticket.id}`),
      overlapMs: 0,
    }).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(RecoveryError);
    expect(failed).toMatchObject({
      cause: down,
      failures: [{ list: 'suggestions', error: down }],
      handled: { suggestions: 2, tickets: 1 },
      // The failing suggestion (10:03) comes again next time; the ticket is not read again.
      checkpoint: { suggestions: '2026-11-22T10:02:00.000Z', tickets: '2026-11-22T10:05:00.000Z' },
    });
    expect(seen).toEqual(['s0', 's1', 't9']);
  });
});
