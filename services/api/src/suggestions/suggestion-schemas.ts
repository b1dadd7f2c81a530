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

/** A suggestion as the API answers it. */
export const suggestionSchema = {
  type: 'object',
  required: ['id', 'title', 'body', 'status', 'author', 'created_at', 'updated_at'],
  additionalProperties: false,
  properties: {
    id: { type: 'integer' },
    title: { type: 'string' },
    body: { type: ['string', 'null'] },
    status: { type: 'string' },
    author: {
      type: 'object',
      required: ['external_id', 'name'],
      additionalProperties: false,
      properties: { external_id: { type: 'string' }, name: { type: ['string', 'null'] } },
    },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
  },
} as const;
