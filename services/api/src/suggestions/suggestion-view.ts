import type { Suggestion } from '../generated/prisma/client.js';

/** A suggestion as the API shows it, and as events carry it. */
export function suggestionView(suggestion: Suggestion) {
  return {
    id: suggestion.id,
    title: suggestion.title,
    body: suggestion.body,
    status: suggestion.status,
    author: { external_id: suggestion.authorExternalId, name: suggestion.authorName },
    comment_count: suggestion.commentCount,
    created_at: suggestion.createdAt.toISOString(),
    updated_at: suggestion.updatedAt.toISOString(),
  };
}
