import { defineContract, requiredText } from '@feedback/contracts';
import { endUserSchema } from '../product/end-user-schema.js';

/** Body of POST /api/v1/suggestions. */
export const createSuggestionRequest = defineContract('create-suggestion-request', {
  type: 'object',
  required: ['title', 'author'],
  additionalProperties: false,
  properties: {
    title: requiredText(200),
    body: { type: ['string', 'null'], maxLength: 10_000 },
    author: endUserSchema,
  },
} as const);
export type CreateSuggestionRequest = ReturnType<typeof createSuggestionRequest.parse>;

