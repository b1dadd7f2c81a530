/**
 * `@feedback/contracts/events`: the webhook events' names and data schemas, without the
 * validators. What a receiver needs at run time (the webhook-receiver library reads the names),
 * without loading ajv and compiling every contract of the services on import.
 */
export { EVENT_NAMES } from './event-names.js';
export type { EventName } from './event-names.js';
export { EVENT_DATA_SCHEMAS } from './product.js';
