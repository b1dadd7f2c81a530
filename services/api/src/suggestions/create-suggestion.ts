import type { PrismaClient } from '../database.js';
import { writeEvent } from '../outbox/write-event.js';
import type { CreateSuggestionRequest } from './suggestion-schemas.js';
import { suggestionView } from './suggestion-view.js';

/**
 * Creates a suggestion on behalf of one of the app's users and records `suggestion.created` in
 * the same transaction. The user is both author and sender: they caused the event.
 */
export async function createSuggestion(
  prisma: PrismaClient,
  app: { id: number; public_key: string },
  input: CreateSuggestionRequest,
) {
  return prisma.$transaction(async (tx) => {
    const suggestion = await tx.suggestion.create({
      data: {
        appId: app.id,
        title: input.title,
        body: input.body ?? null,
        authorExternalId: input.author.external_id,
        authorName: input.author.name ?? null,
      },
    });
    const view = suggestionView(suggestion);
    await writeEvent(tx, {
      event: 'suggestion.created',
      app,
      created_at: suggestion.createdAt,
      data: {
        suggestion: view,
        author: view.author,
        sender: { type: 'app_user', external_id: input.author.external_id, name: input.author.name ?? null },
      },
    });
    return view;
  });
}
