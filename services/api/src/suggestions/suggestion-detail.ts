import type { PrismaClient } from '../database.js';
import type { SuggestionComment } from '../generated/prisma/client.js';
import { ApiError } from '../http/api-error.js';
import { threadPageQuery, toThreadPage } from '../pagination/page-parameters.js';
import type { ThreadPage } from '../pagination/page-parameters.js';
import { writerOf } from '../product/actor.js';
import { SUGGESTION_TRANSITIONS } from '../product/status-transitions.js';
import { suggestionView } from './suggestion-view.js';

/** What the board shows of one suggestion and its comments, for a member of the app's team. */

const notFound = (suggestionId: number) => new ApiError('not_found', `No suggestion ${suggestionId} in this app.`);

/** The suggestion as the list shows it, and the statuses it may move to now. */
export async function suggestionDetail(prisma: PrismaClient, appId: number, suggestionId: number) {
  const suggestion = await prisma.suggestion.findFirst({ where: { id: suggestionId, appId } });
  if (!suggestion) throw notFound(suggestionId);
  return { ...suggestionView(suggestion), allowed_statuses: [...SUGGESTION_TRANSITIONS[suggestion.status]] };
}

/** A comment as its POST answers it, with its author. */
export function commentItem(comment: SuggestionComment) {
  return {
    id: comment.id,
    body: comment.body,
    author: writerOf(comment.authorType, comment.authorExternalId, comment.authorName),
    created_at: comment.createdAt.toISOString(),
  };
}

/** A cursor is valid on the comments of the suggestion it came from. */
export const commentsTag = (appId: number, suggestionId: number) => `comments:${appId}:${suggestionId}`;

/** A page of the suggestion's comments, oldest first. An erased user's comments are gone. */
export async function suggestionComments(prisma: PrismaClient, appId: number, suggestionId: number, page: ThreadPage) {
  if (!(await prisma.suggestion.findFirst({ where: { id: suggestionId, appId }, select: { id: true } }))) throw notFound(suggestionId);
  const { where, orderBy, take } = threadPageQuery(page);
  const rows = await prisma.suggestionComment.findMany({ where: { suggestionId, appId, ...where }, orderBy, take });
  return toThreadPage(page, rows, commentItem);
}
