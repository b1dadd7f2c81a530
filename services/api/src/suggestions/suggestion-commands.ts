import type { SuggestionStatus } from '@feedback/contracts';
import type { Prisma } from '../database.js';
import { ApiError } from '../http/api-error.js';
import { eventToWrite, writeEvent } from '../outbox/write-event.js';
import { senderOf } from '../product/actor.js';
import type { Actor, AppRef } from '../product/actor.js';
import { SUGGESTION_TRANSITIONS, assertTransition } from '../product/status-transitions.js';
import { runnerOf } from '../sql/sql-runner.js';
import type { SqlRunner } from '../sql/sql-runner.js';
import { createSuggestionRow } from './create-suggestions.js';
import { suggestionView } from './suggestion-view.js';
import type { SuggestionView } from './suggestion-view.js';

type Tx = Prisma.TransactionClient;

/** Every change here records its event in the same transaction (the caller's). */

/**
 * A suggestion from an end user: they are both its author and the event's sender. The event is
 * built and checked here, with placeholders where PostgreSQL fills in the row's id and times
 * (`create-suggestions.ts`), so that it is checked whole.
 */
export async function createSuggestion(
  where: SqlRunner | Tx,
  app: AppRef,
  input: { title: string; body?: string | null; author: { external_id: string; name?: string | null } },
): Promise<SuggestionView> {
  const author = { external_id: input.author.external_id, name: input.author.name ?? null };
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
  const created = await createSuggestionRow(runnerOf(where), {
    appId: app.id,
    title: view.title,
    body: view.body,
    authorExternalId: author.external_id,
    authorName: author.name,
    eventId: event.id,
    payload: JSON.stringify(event),
  });
  return { ...view, ...created };
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
