import { SUGGESTION_STATUSES, TICKET_STATUSES, commentViewSchema, suggestionViewSchema, ticketViewSchema } from '@feedback/contracts';

/**
 * Answer shapes of the api's own, beside the record views the events share (`@feedback/contracts`):
 * a ticket message as its POST answers it, and what the dashboard's board reads.
 */

/** A ticket message as POST answers it (a reply from the widget, a reply or note from the dashboard). */
export const ticketMessageSchema = {
  type: 'object',
  required: ['id', 'ticket_id', 'body', 'visibility', 'sender_type', 'created_at'],
  additionalProperties: false,
  properties: {
    id: { type: 'integer' },
    ticket_id: { type: 'integer' },
    body: { type: 'string' },
    visibility: { enum: ['public', 'internal'] },
    sender_type: { enum: ['agent', 'app_user'] },
    created_at: { type: 'string', format: 'date-time' },
  },
} as const;

/** Who wrote a comment or message: a team member (no external id) or an end user of the app. */
export const writerSchema = {
  type: 'object',
  required: ['type', 'external_id', 'name'],
  additionalProperties: false,
  properties: {
    type: { enum: ['member', 'app_user'] },
    external_id: { type: ['string', 'null'], description: "The end user's id in the customer's system; null for a member." },
    name: { type: ['string', 'null'] },
  },
} as const;

/** A comment on the board: as the comment POST answers it, with its author. */
export const boardCommentSchema = {
  ...commentViewSchema,
  required: [...commentViewSchema.required, 'author'],
  properties: { ...commentViewSchema.properties, author: writerSchema },
} as const;

/** A ticket message on the board: as the message POST answers it, with its sender. */
export const boardMessageSchema = {
  ...ticketMessageSchema,
  required: [...ticketMessageSchema.required, 'sender'],
  properties: { ...ticketMessageSchema.properties, sender: writerSchema },
} as const;

/** Where a record may move now (`product/status-transitions.ts`): empty when its status is final. */
const allowedStatuses = (statuses: readonly string[]) => ({ type: 'array', items: { enum: statuses }, uniqueItems: true }) as const;

/** One suggestion on the board: as the list shows it, and where it may move now. */
export const suggestionDetailSchema = {
  ...suggestionViewSchema,
  required: [...suggestionViewSchema.required, 'allowed_statuses'],
  properties: { ...suggestionViewSchema.properties, allowed_statuses: allowedStatuses(SUGGESTION_STATUSES) },
} as const;

/** One ticket on the board: as the list shows it, and where it may move now. */
export const ticketDetailSchema = {
  ...ticketViewSchema,
  required: [...ticketViewSchema.required, 'allowed_statuses'],
  properties: { ...ticketViewSchema.properties, allowed_statuses: allowedStatuses(TICKET_STATUSES) },
} as const;

/** A page of a thread, oldest first. */
export function threadPageSchema<const S>(item: S) {
  return {
    type: 'object',
    required: ['items', 'next_cursor'],
    additionalProperties: false,
    properties: {
      items: { type: 'array', items: item },
      next_cursor: { type: ['string', 'null'], description: 'Pass as `cursor` for the next page; null on the last page.' },
    },
  } as const;
}
