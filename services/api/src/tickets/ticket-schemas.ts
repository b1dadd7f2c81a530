import { defineContract, requiredText } from '@feedback/contracts';
import { endUserSchema } from '../product/end-user-schema.js';

/** Body of POST /api/v1/tickets. */
export const createTicketRequest = defineContract('create-ticket-request', {
  type: 'object',
  required: ['subject', 'body', 'author'],
  additionalProperties: false,
  properties: {
    subject: requiredText(200),
    body: { ...requiredText(20_000), description: 'The first message of the ticket.' },
    author: endUserSchema,
  },
} as const);
