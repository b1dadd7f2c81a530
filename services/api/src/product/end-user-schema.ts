/** An end user of the customer's app, as requests name them: the customer's own id and a name. */
export const endUserSchema = {
  type: 'object',
  required: ['external_id'],
  additionalProperties: false,
  properties: {
    external_id: { type: 'string', minLength: 1, maxLength: 255, description: "Your system's id for this user." },
    name: { type: ['string', 'null'], maxLength: 255 },
  },
} as const;
