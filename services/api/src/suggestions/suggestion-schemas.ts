import { defineContract } from '@feedback/contracts';

const authorInput = {
  type: 'object',
  required: ['external_id'],
  additionalProperties: false,
  properties: {
    external_id: { type: 'string', minLength: 1, maxLength: 255, description: "Your system's id for this user." },
    name: { type: ['string', 'null'], maxLength: 255 },
  },
} as const;

/** Body of POST /api/v1/suggestions. */
export const createSuggestionRequest = defineContract('create-suggestion-request', {
  type: 'object',
  required: ['title', 'author'],
  additionalProperties: false,
  properties: {
    title: { type: 'string', minLength: 1, maxLength: 200 },
    body: { type: ['string', 'null'], maxLength: 10_000 },
    author: authorInput,
  },
} as const);
export type CreateSuggestionRequest = ReturnType<typeof createSuggestionRequest.parse>;
