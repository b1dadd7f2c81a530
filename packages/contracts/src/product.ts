/**
 * Product records as the API answers them and as events carry them: suggestions, tickets,
 * their comments and messages, and survey responses. One schema each, for REST and webhooks.
 */
import { authorSchema, senderSchema } from './identity.js';

export const SUGGESTION_STATUSES = ['open', 'under_review', 'planned', 'in_progress', 'completed', 'declined'] as const;
export type SuggestionStatus = (typeof SUGGESTION_STATUSES)[number];

export const TICKET_STATUSES = ['open', 'pending', 'solved', 'closed'] as const;
export type TicketStatus = (typeof TICKET_STATUSES)[number];

const timestamps = {
  created_at: { type: 'string', format: 'date-time' },
  updated_at: { type: 'string', format: 'date-time' },
} as const;

export const suggestionViewSchema = {
  type: 'object',
  required: ['id', 'title', 'body', 'status', 'author', 'comment_count', 'created_at', 'updated_at'],
  additionalProperties: false,
  properties: {
    id: { type: 'integer' },
    title: { type: 'string' },
    body: { type: ['string', 'null'] },
    status: { enum: SUGGESTION_STATUSES },
    author: authorSchema,
    comment_count: { type: 'integer', minimum: 0 },
    ...timestamps,
  },
} as const;

export const ticketViewSchema = {
  type: 'object',
  required: ['id', 'number', 'subject', 'status', 'author', 'created_at', 'updated_at'],
  additionalProperties: false,
  properties: {
    id: { type: 'integer' },
    number: { type: 'string', description: 'Human-facing ticket number, e.g. "T-1042".' },
    subject: { type: 'string' },
    status: { enum: TICKET_STATUSES },
    author: authorSchema,
    ...timestamps,
  },
} as const;

export const commentViewSchema = {
  type: 'object',
  required: ['id', 'body', 'created_at'],
  additionalProperties: false,
  properties: { id: { type: 'integer' }, body: { type: 'string' }, created_at: { type: 'string', format: 'date-time' } },
} as const;

export const surveyResponseViewSchema = {
  type: 'object',
  required: ['id', 'survey_id', 'score', 'answers', 'created_at'],
  additionalProperties: false,
  properties: {
    id: { type: 'integer' },
    survey_id: { type: 'string' },
    score: { type: ['integer', 'null'], minimum: 0, maximum: 10 },
    answers: { type: 'object', additionalProperties: { type: ['string', 'number', 'boolean', 'null'] } },
    created_at: { type: 'string', format: 'date-time' },
  },
} as const;

const identity = { author: authorSchema, sender: senderSchema } as const;

function eventData<const P extends Record<string, unknown>, const R extends readonly string[]>(properties: P, required: R) {
  return {
    type: 'object',
    required: [...required, 'author', 'sender'],
    additionalProperties: false,
    properties: { ...properties, ...identity },
  } as const;
}

/** The `data` of each event (specification section 6), beside `author` and `sender`. */
export const EVENT_DATA_SCHEMAS = {
  'suggestion.created': eventData({ suggestion: suggestionViewSchema }, ['suggestion']),
  'suggestion.status_changed': eventData(
    { suggestion: suggestionViewSchema, status_before: { enum: SUGGESTION_STATUSES }, status_after: { enum: SUGGESTION_STATUSES } },
    ['suggestion', 'status_before', 'status_after'],
  ),
  'suggestion.commented': eventData({ suggestion_id: { type: 'integer' }, comment: commentViewSchema }, ['suggestion_id', 'comment']),
  'ticket.created': eventData({ ticket: ticketViewSchema }, ['ticket']),
  'ticket.status_changed': eventData(
    {
      ticket_id: { type: 'integer' },
      ticket_number: { type: 'string' },
      status_before: { enum: TICKET_STATUSES },
      status_after: { enum: TICKET_STATUSES },
    },
    ['ticket_id', 'ticket_number', 'status_before', 'status_after'],
  ),
  'ticket.replied': eventData(
    {
      ticket_id: { type: 'integer' },
      ticket_number: { type: 'string' },
      message_id: { type: 'integer' },
      sender_type: { enum: ['agent', 'app_user'], description: '`agent` when the team replied.' },
      body: { type: 'string' },
    },
    ['ticket_id', 'ticket_number', 'message_id', 'sender_type', 'body'],
  ),
  'survey.response.created': eventData(
    { response: surveyResponseViewSchema, app_user_id: { type: 'string', description: 'Legacy: the same as author.external_id.' } },
    ['response', 'app_user_id'],
  ),
  'webhook.ping': eventData({ endpoint_id: { type: 'string' }, message: { type: 'string' } }, ['endpoint_id', 'message']),
} as const;
