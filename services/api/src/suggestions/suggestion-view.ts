import type { SuggestionStatus } from '@feedback/contracts';
import type { Suggestion } from '../generated/prisma/client.js';

export interface SuggestionView {
  id: number;
  title: string;
  body: string | null;
  status: SuggestionStatus;
  author: { external_id: string | null; name: string | null };
  comment_count: number;
  created_at: string;
  updated_at: string;
}

/** A suggestion as the API shows it, and as events carry it. */
export function suggestionView(suggestion: Suggestion): SuggestionView {
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
