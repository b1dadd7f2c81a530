import type { SuggestionStatus } from '@feedback/contracts';
import type { Prisma } from '../database.js';
import { ApiError } from '../http/api-error.js';
import { eventToWrite, writeEvent } from '../outbox/write-event.js';
import { senderOf } from '../product/actor.js';
import type { Actor, AppRef } from '../product/actor.js';
import { SUGGESTION_TRANSITIONS, assertTransition } from '../product/status-transitions.js';
import { runnerOf, isoTime } from '../sql/sql-runner.js';
import type { SqlRunner, Statement } from '../sql/sql-runner.js';
import { suggestionView } from './suggestion-view.js';
import type { SuggestionView } from './suggestion-view.js';

type Tx = Prisma.TransactionClient;

/** Every change here records its event in the same transaction (the caller's). */

/**
 * The suggestion and its event in one statement, so in one transaction even on its own: the
 * event is built and checked here first, and PostgreSQL writes the row's id and times into it.
 * A suggestion is created with its status and comment count given, so only those three differ.
 */
const CREATE_SUGGESTION: Statement = {
  name: 'create-suggestion',
  text: `WITH suggestion AS (
    INSERT INTO api.suggestions (app_id, title, body, status, author_external_id, author_name, comment_count)
    VALUES ($1::int, $2::text, $3::text, 'open', $4::text, $5::text, 0)
    RETURNING id, ${isoTime('created_at')} AS created_at, ${isoTime('updated_at')} AS updated_at
  ), event AS (
    INSERT INTO api.outbox_events (event_id, event_type, payload)
    SELECT $6::uuid, 'suggestion.created', jsonb_set($7::jsonb || jsonb_build_object('created_at', s.created_at), '{data,suggestion}',
             ($7::jsonb #> '{data,suggestion}') || jsonb_build_object('id', s.id, 'created_at', s.created_at, 'updated_at', s.updated_at))
    FROM suggestion s
  )
  SELECT id, created_at, updated_at FROM suggestion`,
};

/** A suggestion from an end user: they are both its author and the event's sender. */
export async function createSuggestion(
  where: SqlRunner | Tx,
  app: AppRef,
  input: { title: string; body?: string | null; author: { external_id: string; name?: string | null } },
): Promise<SuggestionView> {
  const author = { external_id: input.author.external_id, name: input.author.name ?? null };
  // What PostgreSQL fills in, given here in the shape it will have so that the event is checked whole.
  const placeholder = { id: 1, created_at: new Date().toISOString() };
  const view: SuggestionView = {
    id: placeholder.id,
    title: input.title,
    body: input.body ?? null,
    status: 'open',
    author,
    comment_count: 0,
    created_at: placeholder.created_at,
    updated_at: placeholder.created_at,
  };
  const event = eventToWrite({
    event: 'suggestion.created',
    app,
    data: { suggestion: view, author, sender: senderOf({ type: 'app_user', externalId: author.external_id, name: author.name }) },
  });
  const [row] = await runnerOf(where).rows<{ id: number; created_at: string; updated_at: string }>(CREATE_SUGGESTION, [
    app.id,
    view.title,
    view.body,
    author.external_id,
    author.name,
    event.id,
    JSON.stringify(event),
  ]);
  return { ...view, id: row!.id, created_at: row!.created_at, updated_at: row!.updated_at };
}

async function lockSuggestion(tx: Tx, appId: number, suggestionId: number) {
  // Row lock: two status changes at once apply one after the other, each seeing the other's result.
  const [row] = await tx.$queryRaw<Array<{ id: number }>>`SELECT id FROM api.suggestions WHERE id = ${suggestionId} AND app_id = ${appId} FOR UPDATE`;
  if (!row) throw new ApiError('not_found', `No suggestion ${suggestionId} in this app.`);
  return tx.suggestion.findUniqueOrThrow({ where: { id: suggestionId } });
}

export async function changeSuggestionStatus(tx: Tx, app: AppRef, suggestionId: number, status: SuggestionStatus, actor: Actor) {
  const current = await lockSuggestion(tx, app.id, suggestionId);
  assertTransition(SUGGESTION_TRANSITIONS, current.status, status, 'suggestion');
  const updated = await tx.suggestion.update({ where: { id: suggestionId }, data: { status } });
  const view = suggestionView(updated);
  await writeEvent(tx, {
    event: 'suggestion.status_changed',
    app,
    created_at: updated.updatedAt,
    data: { suggestion: view, status_before: current.status, status_after: status, author: view.author, sender: senderOf(actor) },
  });
  return view;
}

export async function commentOnSuggestion(tx: Tx, app: AppRef, suggestionId: number, body: string, actor: Actor) {
  await lockSuggestion(tx, app.id, suggestionId);
  const comment = await tx.suggestionComment.create({
    data: {
      suggestionId,
      appId: app.id,
      body,
      authorType: actor.type === 'member' ? 'agent' : 'app_user',
      memberId: actor.type === 'member' ? actor.memberId : null,
      authorExternalId: actor.type === 'app_user' ? actor.externalId : null,
      authorName: actor.name,
    },
  });
  const suggestion = await tx.suggestion.update({ where: { id: suggestionId }, data: { commentCount: { increment: 1 } } });
  const commentView = { id: comment.id, body: comment.body, created_at: comment.createdAt.toISOString() };
  await writeEvent(tx, {
    event: 'suggestion.commented',
    app,
    created_at: comment.createdAt,
    data: {
      suggestion_id: suggestionId,
      comment: commentView,
      author: { external_id: suggestion.authorExternalId, name: suggestion.authorName },
      sender: senderOf(actor),
    },
  });
  return commentView;
}
