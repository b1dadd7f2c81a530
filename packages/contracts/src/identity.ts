/** Identity objects carried in every event's `data` (specification section 2.6). */
export const authorSchema = {
  type: 'object',
  description: 'Owner of the record: whoever opened the ticket, created the suggestion or answered the survey.',
  required: ['external_id', 'name'],
  additionalProperties: false,
  properties: {
    external_id: { type: ['string', 'null'], description: "The id the customer's own system gave this user." },
    name: { type: ['string', 'null'] },
  },
} as const;

export const senderSchema = {
  type: 'object',
  description: 'Whoever caused this specific event.',
  required: ['type', 'external_id', 'name'],
  additionalProperties: false,
  oneOf: [
    { properties: { type: { const: 'member' }, external_id: { type: 'null' } } },
    { properties: { type: { const: 'app_user' }, external_id: { type: 'string' } } },
  ],
  properties: {
    type: { enum: ['member', 'app_user'] },
    external_id: { type: ['string', 'null'] },
    name: { type: ['string', 'null'] },
  },
} as const;
