/** The largest id a record can have: ids are PostgreSQL `integer`s. */
export const MAX_RECORD_ID = 2_147_483_647;

/**
 * A record id in a request. A larger one names no record, and the database would refuse it
 * outright rather than find nothing, so the contract refuses it first.
 */
export const recordIdSchema = { type: 'integer', maximum: MAX_RECORD_ID } as const;
