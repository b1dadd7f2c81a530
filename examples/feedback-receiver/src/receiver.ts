import express from 'express';
import type { Express } from 'express';
import type { Suggestion, Ticket } from '@feedback/api-client';
import { RecoveryError, asKnownEvent, recoverMissedWebhooks, shouldNotifyAuthor, webhookMiddleware } from '@feedback/webhook-receiver';
import type { IdempotencyStore, RecoveryResult, RecoverySource, UnknownWebhookEvent, WebhookEvent } from '@feedback/webhook-receiver';
import type { Checkpoint } from './checkpoint.js';
import type { KnownStatuses } from './known-statuses.js';
import type { Notifier } from './notifier.js';

export interface ReceiverOptions {
  /** The endpoint's `whsec_` signing secret. */
  secret: string;
  /** Handled delivery ids, so a duplicate delivery is skipped. */
  idempotencyStore: IdempotencyStore;
  /** How far the previous recovery sweep got: where the next one starts. */
  checkpoint: Checkpoint;
  /** The latest status of each record, shared by webhooks and the sweep. */
  statuses: KnownStatuses;
  notifier: Notifier;
  /** Where the sweep reads: a `FeedbackClient` of @feedback/api-client. */
  source: RecoverySource<Suggestion, Ticket>;
  /** One line per thing the receiver did. Default: JSON lines on standard output. */
  log?: (line: Record<string, unknown>) => void;
}

export interface Receiver {
  /** `POST /webhooks` (point the endpoint here) and `GET /health`. */
  app: Express;
  /** What a verified, first-seen delivery does. */
  handleEvent(event: WebhookEvent | UnknownWebhookEvent): Promise<void>;
  /**
   * The recovery sweep (specification section 4): reads every suggestion and ticket changed since
   * the previous sweep (or since `firstRunSince` on a first run) and acts on what the webhooks
   * missed, then moves the checkpoint on.
   */
  catchUp(options: { firstRunSince: Date }): Promise<RecoveryResult>;
}

const words = (status: string) => status.replaceAll('_', ' ');

/**
 * A receiver that tells end users when someone else acted on what they posted: a status change,
 * a comment, a reply. Notifications follow section 6's rule (author and sender differ). A status
 * change is told once, whether a webhook or the recovery sweep brings it first, and marked told
 * only once told: a notifier that fails has it told on the retry (KnownStatuses).
 */
export function createReceiver(options: ReceiverOptions): Receiver {
  const { statuses, notifier, checkpoint } = options;
  const log = options.log ?? ((line) => process.stdout.write(`${JSON.stringify(line)}\n`));

  async function tellAuthor(event: WebhookEvent, message: string): Promise<void> {
    const author = event.data.author?.external_id;
    if (!author || !shouldNotifyAuthor(event)) return;
    await notifier.notify(author, message);
  }

  async function handleEvent(received: WebhookEvent | UnknownWebhookEvent): Promise<void> {
    const event = asKnownEvent(received);
    if (!event) {
      // Newer than this receiver's library: acknowledged, so it is not retried for nothing.
      log({ ignored: received.event, id: received.id });
      return;
    }
    switch (event.event) {
      case 'suggestion.created': {
        const { suggestion } = event.data;
        await statuses.observed('suggestion', suggestion.id, suggestion.status, suggestion.updated_at);
        break;
      }
      case 'suggestion.status_changed': {
        const { suggestion, status_after: status } = event.data;
        // Told if this change brought the status known now and is not told yet.
        const known = await statuses.changed('suggestion', suggestion.id, status, suggestion.updated_at);
        if (known.status === status && !known.told) {
          await tellAuthor(event, `Your suggestion "${suggestion.title}" is now ${words(status)}.`);
          await statuses.markTold('suggestion', suggestion.id, status);
        }
        break;
      }
      case 'suggestion.commented':
        await tellAuthor(event, `New comment on your suggestion: "${event.data.comment.body}"`);
        break;
      case 'ticket.created': {
        const { ticket } = event.data;
        await statuses.observed('ticket', ticket.id, ticket.status, ticket.updated_at);
        break;
      }
      case 'ticket.status_changed': {
        const { ticket_id: id, ticket_number: number, status_after: status } = event.data;
        // The event's time is when the status changed.
        const known = await statuses.changed('ticket', id, status, event.created_at);
        if (known.status === status && !known.told) {
          await tellAuthor(event, `Your ticket ${number} is now ${words(status)}.`);
          await statuses.markTold('ticket', id, status);
        }
        break;
      }
      case 'ticket.replied':
        await tellAuthor(event, `New reply on your ticket ${event.data.ticket_number}: "${event.data.body}"`);
        break;
      case 'survey.response.created':
      case 'webhook.ping':
        break;
    }
    // The checkpoint is not moved here: a later delivery that succeeds says nothing about an
    // earlier one still being retried, which may yet be abandoned. Only the sweep moves it.
    log({ handled: event.event, id: event.id });
  }

  async function catchUp({ firstRunSince }: { firstRunSince: Date }): Promise<RecoveryResult> {
    const since = (await checkpoint.read()) ?? firstRunSince;
    const result = await recoverMissedWebhooks({
      since,
      source: options.source,
      async onSuggestion(suggestion) {
        const known = await statuses.observed('suggestion', suggestion.id, suggestion.status, suggestion.updated_at);
        // Only the team moves a suggestion on the board, so a status change missed while away is
        // someone else's action: the author is told. (A suggestion first seen here may have been
        // created with its status: nothing is told, and its webhook, if it comes, tells.)
        const author = suggestion.author?.external_id;
        if (known.changed && known.previous !== undefined && author) {
          await notifier.notify(author, `Your suggestion "${suggestion.title}" is now ${words(suggestion.status)}.`);
          await statuses.markTold('suggestion', suggestion.id, suggestion.status);
        }
      },
      async onTicket(ticket) {
        // A ticket's status also moves by its author's own action (a reply reopens it), which the
        // list does not tell apart: the sweep brings the status up to date without a message, and
        // the change's webhook, when its retry comes, still tells it.
        await statuses.observed('ticket', ticket.id, ticket.status, ticket.updated_at);
      },
    }).catch(async (error: unknown) => {
      // What was handled before a failure counts: the next sweep starts from there.
      if (error instanceof RecoveryError) await checkpoint.advance(error.checkpoint);
      throw error;
    });
    // Moved by the service's own times (or, before a list has brought anything, kept where it
    // was): this machine's clock may be ahead of the service's.
    await checkpoint.advance(result.checkpoint);
    log({ caught_up_since: since instanceof Date ? since.toISOString() : since, suggestions: result.suggestions, tickets: result.tickets });
    return result;
  }

  const app = express();
  app.disable('x-powered-by');
  // The middleware reads the raw body itself: no JSON parser runs before it on this route.
  app.post(
    '/webhooks',
    webhookMiddleware({
      secret: options.secret,
      idempotencyStore: options.idempotencyStore,
      onEvent: handleEvent,
      onError: (error, event) => log({ failed: event.event, id: event.id, error: error instanceof Error ? error.message : String(error) }),
    }),
  );
  app.get('/health', (_request, response) => {
    response.json({ ok: true });
  });

  return { app, handleEvent, catchUp };
}
