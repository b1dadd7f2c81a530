import { MAX_RECORD_ID, SUGGESTION_STATUSES, TICKET_STATUSES, defineContract, requiredText } from '@feedback/contracts';
import { endUserSchema } from './end-user-schema.js';

/** Bodies of the widget and dashboard product actions. */

export const widgetSuggestionRequest = defineContract('widget-suggestion-request', {
  type: 'object',
  required: ['title', 'user'],
  additionalProperties: false,
  properties: { title: requiredText(200), body: { type: ['string', 'null'], maxLength: 10_000 }, user: endUserSchema },
} as const);

export const widgetCommentRequest = defineContract('widget-comment-request', {
  type: 'object',
  required: ['body', 'user'],
  additionalProperties: false,
  properties: { body: requiredText(10_000), user: endUserSchema },
} as const);

export const widgetTicketRequest = defineContract('widget-ticket-request', {
  type: 'object',
  required: ['subject', 'body', 'user'],
  additionalProperties: false,
  properties: { subject: requiredText(200), body: requiredText(20_000), user: endUserSchema },
} as const);

export const widgetReplyRequest = defineContract('widget-reply-request', {
  type: 'object',
  required: ['body', 'user'],
  additionalProperties: false,
  properties: { body: requiredText(20_000), user: endUserSchema },
} as const);

export const widgetSurveyResponseRequest = defineContract('widget-survey-response-request', {
  type: 'object',
  required: ['survey_id', 'user'],
  additionalProperties: false,
  properties: {
    // The customer's own id for the survey, taken as given like an external id.
    survey_id: { type: 'string', minLength: 1, maxLength: 100 },
    score: { type: ['integer', 'null'], minimum: 0, maximum: 10 },
    answers: { type: 'object', maxProperties: 50, additionalProperties: { type: ['string', 'number', 'boolean', 'null'] } },
    user: endUserSchema,
  },
} as const);

export const suggestionStatusRequest = defineContract('suggestion-status-request', {
  type: 'object',
  required: ['status'],
  additionalProperties: false,
  properties: { status: { enum: SUGGESTION_STATUSES } },
} as const);

export const ticketStatusRequest = defineContract('ticket-status-request', {
  type: 'object',
  required: ['status'],
  additionalProperties: false,
  properties: { status: { enum: TICKET_STATUSES } },
} as const);

export const memberCommentRequest = defineContract('member-comment-request', {
  type: 'object',
  required: ['body'],
  additionalProperties: false,
  properties: { body: requiredText(10_000) },
} as const);

export const ticketMessageRequest = defineContract('ticket-message-request', {
  type: 'object',
  required: ['body', 'visibility'],
  additionalProperties: false,
  properties: {
    body: requiredText(20_000),
    visibility: { enum: ['public', 'internal'], description: '`public` is a reply the end user sees (emits ticket.replied); `internal` is a team-only note.' },
  },
} as const);

/** A numeric path parameter; anything else, or an id beyond any record's, is a 404, as no such record exists. */
export function recordId(raw: unknown): number {
  const id = typeof raw === 'string' && /^\d{1,10}$/.test(raw) ? Number(raw) : -1;
  return id <= MAX_RECORD_ID ? id : -1;
}
