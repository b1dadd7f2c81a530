const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether text from a path or a cursor is a UUID, as the ids of webhook endpoints and deliveries
 * are: one that is not names nothing, and PostgreSQL would refuse it rather than find nothing.
 */
export const isUuid = (text: string): boolean => UUID.test(text);
