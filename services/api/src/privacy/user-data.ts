import { randomUUID } from 'node:crypto';
import { erasedUserHash, erasureHashKeyId } from '@feedback/contracts';
import { retryOnConflict } from '@feedback/database';
import { Prisma } from '../database.js';
import type { PrismaClient } from '../database.js';
import { ERASED_REQUEST_HASH } from '../idempotency/idempotent.js';
import { suggestionView } from '../suggestions/suggestion-view.js';
import { ticketView } from '../tickets/ticket-view.js';

/** The answer of DELETE /api/v1/privacy/users/{externalId}. */
export const erasureResultSchema = {
  type: 'object',
  required: ['external_id', 'suggestions_anonymised', 'comments_deleted', 'tickets_deleted', 'survey_responses_deleted', 'events_withheld', 'events_anonymised'],
  additionalProperties: false,
  properties: {
    external_id: { type: 'string' },
    suggestions_anonymised: { type: 'integer', description: 'Kept on the board with the author removed.' },
    comments_deleted: { type: 'integer' },
    tickets_deleted: { type: 'integer', description: 'With all their messages.' },
    survey_responses_deleted: { type: 'integer' },
    events_withheld: { type: 'integer', description: 'Events the user caused, or about records now deleted, not yet sent: now never sent.' },
    events_anonymised: {
      type: 'integer',
      description: 'Events not yet sent about their suggestions, caused by someone else (a status change by the team): sent with the author removed.',
    },
  },
};

/** The answer of GET /api/v1/privacy/users/{externalId}. */
export const exportResultSchema = {
  type: 'object',
  required: ['external_id', 'exported_at', 'suggestions', 'comments', 'tickets', 'survey_responses'],
  properties: {
    external_id: { type: 'string' },
    exported_at: { type: 'string', format: 'date-time' },
    suggestions: { type: 'array', items: { $ref: '#/components/schemas/Suggestion' } },
    comments: { type: 'array', items: { type: 'object' } },
    tickets: { type: 'array', items: { type: 'object', description: 'A ticket with all its messages.' } },
    survey_responses: { type: 'array', items: { $ref: '#/components/schemas/SurveyResponse' } },
  },
};

/** Everything the api holds about one end user of one app (specification: privacy:read). */
export async function exportUserData(prisma: PrismaClient, appId: number, externalId: string) {
  const [suggestions, comments, tickets, surveyResponses] = await Promise.all([
    prisma.suggestion.findMany({ where: { appId, authorExternalId: externalId }, orderBy: { id: 'asc' } }),
    prisma.suggestionComment.findMany({ where: { appId, authorExternalId: externalId }, orderBy: { id: 'asc' } }),
    prisma.ticket.findMany({ where: { appId, authorExternalId: externalId }, orderBy: { id: 'asc' }, include: { messages: { orderBy: { id: 'asc' } } } }),
    prisma.surveyResponse.findMany({ where: { appId, respondentExternalId: externalId }, orderBy: { id: 'asc' } }),
  ]);
  return {
    external_id: externalId,
    exported_at: new Date().toISOString(),
    suggestions: suggestions.map(suggestionView),
    comments: comments.map((comment) => ({ id: comment.id, suggestion_id: comment.suggestionId, body: comment.body, created_at: comment.createdAt.toISOString() })),
    tickets: tickets.map((ticket) => ({
      ...ticketView(ticket),
      messages: ticket.messages.map((message) => ({
        id: message.id,
        body: message.body,
        visibility: message.visibility,
        sender_type: message.senderType,
        created_at: message.createdAt.toISOString(),
      })),
    })),
    survey_responses: surveyResponses.map((response) => ({
      id: response.id,
      survey_id: response.surveyId,
      score: response.score,
      answers: response.answers,
      created_at: response.createdAt.toISOString(),
    })),
  };
}

/**
 * Erases one end user of one app, in one transaction (specification: privacy:write). Their
 * suggestions stay, anonymised; their comments, tickets (with every message) and survey
 * responses are deleted; events about them not yet published are withheld or anonymised, those
 * published deleted from the outbox (see eraseFromOutbox); stored answers to idempotent requests that show them are dropped,
 * leaving the key (a retry with it gets 410 user_erased); and `privacy.user_erased` tells the
 * worker to erase its copies and deliver nothing more about them. Running it again finds nothing
 * to do.
 */
export async function eraseUserData(prisma: PrismaClient, appId: number, externalId: string, erasureHashKey: Buffer) {
  // Longer than Prisma's 5 s: an event of theirs that the relay is publishing at that moment is
  // waited for (see eraseFromOutbox), which takes up to the broker's 5 s confirm timeout if the
  // broker goes away during that batch.
  // Safe to run again from the start: nothing of a transaction PostgreSQL ended is kept, and a
  // second erasure of the same user finds only what is still there.
  return retryOnConflict(() => prisma.$transaction(async (tx) => {
    // Every suggestion this changes, locked first and in id order: its own (anonymised) and those
    // it commented on (one comment fewer). Taken as the statements below reach them, two erasures
    // of users who commented on each other's suggestions each held one and waited for the other.
    await tx.$queryRaw`
      SELECT id FROM api.suggestions
      WHERE app_id = ${appId} AND (author_external_id = ${externalId}
        OR id IN (SELECT suggestion_id FROM api.suggestion_comments WHERE app_id = ${appId} AND author_external_id = ${externalId}))
      ORDER BY id
      FOR UPDATE`;
    const anonymised = await tx.suggestion.updateMany({
      where: { appId, authorExternalId: externalId },
      // The idea stays on the board, the person goes: no id, no name.
      data: { authorExternalId: null, authorName: null },
    });
    // Their comments go, and each suggestion they were on counts that many fewer and shows as
    // changed (as a new comment does, so a recovery sweep by updated_since sees the new count):
    // one statement for all of them, however many they wrote.
    const [{ deleted: commentsDeleted } = { deleted: 0 }] = await tx.$queryRaw<Array<{ deleted: number }>>`
      WITH gone AS (
        DELETE FROM api.suggestion_comments WHERE app_id = ${appId} AND author_external_id = ${externalId}
        RETURNING suggestion_id
      ), counted AS (
        UPDATE api.suggestions s SET comment_count = s.comment_count - per.n, updated_at = statement_timestamp()
        FROM (SELECT suggestion_id, count(*)::int AS n FROM gone GROUP BY suggestion_id) per
        WHERE s.id = per.suggestion_id
      )
      SELECT count(*)::int AS deleted FROM gone`;
    const tickets = await tx.ticket.deleteMany({ where: { appId, authorExternalId: externalId } });
    const surveys = await tx.surveyResponse.deleteMany({ where: { appId, respondentExternalId: externalId } });
    // Kept as a tombstone, not deleted: a retry with the same key would run the request again and
    // bring the erased user back. Its retention counts from now, so a key nearly expired at the
    // erasure still refuses retries for a whole retention.
    await tx.$executeRaw`
      UPDATE api.idempotency_records SET request_hash = ${ERASED_REQUEST_HASH}, response_status = NULL, response_body = NULL, created_at = now()
      WHERE app_id = ${appId} AND (response_body -> 'author' ->> 'external_id' = ${externalId}
        OR response_body -> 'user' ->> 'external_id' = ${externalId})`;
    const erasure = { id: randomUUID(), event: 'privacy.user_erased' as const, created_at: new Date().toISOString(), app_id: appId, user_hash: erasedUserHash(erasureHashKey, appId, externalId), hash_key: erasureHashKeyId(erasureHashKey) };
    await tx.outboxEvent.create({ data: { eventId: erasure.id, eventType: erasure.event, payload: erasure } });
    // Last: from here to the commit it holds their waiting events, which a batch may be waiting for.
    const { withheld, anonymised: eventsAnonymised } = await eraseFromOutbox(tx, appId, externalId);
    return {
      external_id: externalId,
      suggestions_anonymised: anonymised.count,
      comments_deleted: commentsDeleted,
      tickets_deleted: tickets.count,
      survey_responses_deleted: surveys.count,
      events_withheld: withheld,
      events_anonymised: eventsAnonymised,
    };
  }, { timeout: 15_000 }));
}

/**
 * No later webhook carries the user, and the outbox keeps nothing about them. Unpublished events
 * they caused, or about records erasure deletes (their tickets, survey responses), are deleted.
 * Those about one of their suggestions, which stays on the board, caused by someone else (a
 * member changing its status, another user commenting), still tell receivers what happened to
 * the suggestion: they keep it, with the author removed as the suggestion's own author is.
 * Published events naming them are deleted. An event the relay is publishing at this moment is
 * waited for, and then treated as published (or, if the broker did not take it, as waiting).
 */
async function eraseFromOutbox(tx: Prisma.TransactionClient, appId: number, externalId: string) {
  // The events that name them: as author or sender, in their app. Written as two conditions of
  // the same shape as the published-history indexes (outbox_events_published_by_author_idx and
  // _by_sender_idx), the app id as text, so each is one index lookup.
  const app = String(appId);
  const namesUser = Prisma.sql`((payload -> 'app' ->> 'id' = ${app} AND payload -> 'data' -> 'author' ->> 'external_id' = ${externalId})
    OR (payload -> 'app' ->> 'id' = ${app} AND payload -> 'data' -> 'sender' ->> 'external_id' = ${externalId}))`;
  // Events already published are history the outbox has no further use for, holding the user's
  // name, texts and id: deleted. (Receivers erase what was delivered to them; the worker erases
  // its own copies when privacy.user_erased reaches it.) It runs before anything the relay may
  // wait for is locked: it touches published rows only, which the relay never does.
  await tx.$executeRaw`
    DELETE FROM api.outbox_events
    WHERE published_at IS NOT NULL AND ${namesUser}`;
  // Their events still waiting for the broker, locked in the relay's order (position): one a
  // batch has claimed is waited for, and then is no longer waiting. The statements after this
  // touch only the rows it locked, so the relay and an erasure never wait for each other in a
  // cycle. (An event of theirs committed after this point is not seen here; the worker withholds
  // what names an erased user once privacy.user_erased has reached it.)
  const waiting = (
    await tx.$queryRaw<Array<{ position: bigint }>>`
      SELECT position FROM api.outbox_events
      WHERE published_at IS NULL AND ${namesUser}`
  ).map((row) => row.position);
  if (waiting.length === 0) return { withheld: 0, anonymised: 0 };
  const held = (
    await tx.$queryRaw<Array<{ position: bigint }>>`
      SELECT position FROM api.outbox_events
      WHERE position = ANY (${waiting}::bigint[]) AND published_at IS NULL
      ORDER BY position
      FOR UPDATE`
  ).map((row) => row.position);
  const withheld = await tx.$executeRaw`
    DELETE FROM api.outbox_events
    WHERE position = ANY (${held}::bigint[])
      AND (payload -> 'data' -> 'sender' ->> 'external_id' = ${externalId}
        OR (payload -> 'data' -> 'author' ->> 'external_id' = ${externalId} AND event_type NOT LIKE 'suggestion.%'))`;
  const nobody = JSON.stringify({ external_id: null, name: null });
  const anonymised = await tx.$executeRaw`
    UPDATE api.outbox_events
    SET payload = jsonb_set(jsonb_set(payload, '{data,author}', ${nobody}::jsonb), '{data,suggestion,author}', ${nobody}::jsonb, false)
    WHERE position = ANY (${held}::bigint[])
      AND payload -> 'data' -> 'author' ->> 'external_id' = ${externalId}`;
  // Those a batch published while this waited are history now, as above.
  await tx.$executeRaw`DELETE FROM api.outbox_events WHERE position = ANY (${waiting}::bigint[]) AND published_at IS NOT NULL`;
  return { withheld, anonymised };
}
