import type { components, operations } from './generated/api-v1.js';

// Every type here is derived from the generated OpenAPI types, so a change to the document that
// the client does not follow fails to compile.
type JsonBody<O extends keyof operations, S extends keyof operations[O]['responses']> = operations[O]['responses'][S] extends {
  content: { 'application/json': infer B };
}
  ? B
  : never;
type RequestBody<O extends keyof operations> = NonNullable<operations[O]['requestBody']> extends { content: { 'application/json': infer B } } ? B : never;

export type Suggestion = components['schemas']['Suggestion'];
export type Ticket = components['schemas']['Ticket'];
export type CreateSuggestionBody = RequestBody<'createSuggestion'>;
export type CreateTicketBody = RequestBody<'createTicket'>;
export type SuggestionPage = JsonBody<'listSuggestions', 200>;
export type TicketPage = JsonBody<'listTickets', 200>;
export type Analytics = JsonBody<'getAnalytics', 200>;
export type UserDataExport = JsonBody<'exportUserData', 200>;
export type ErasureResult = JsonBody<'eraseUserData', 200>;

type ListQuery = NonNullable<operations['listSuggestions']['parameters']['query']>;

/** Parameters of one page of a list. */
export interface ListParams {
  /** Items per page, 1 to 100. Default (the server's): 25. */
  limit?: number;
  /** The previous page's `next_cursor`. */
  cursor?: string;
  /** Only items updated at or after this instant, oldest update first. */
  updated_since?: Date | string;
}

/** The period of the analytics; both ends optional (the server defaults to the last 30 days). */
export interface AnalyticsParams {
  from?: Date | string;
  to?: Date | string;
}

export interface CreateOptions {
  /** Makes retries of this create safe: the server answers the first result again. Default: a new random UUID per call, kept across this call's retries. */
  idempotencyKey?: string;
}

// Compile-time checks that the hand-written parameters name only what the document accepts.
type Within<Sub, Super> = Exclude<keyof Sub, keyof Super> extends never ? true : never;
const listParamsMatch: Within<ListParams, ListQuery> = true;
const analyticsParamsMatch: Within<AnalyticsParams, NonNullable<operations['getAnalytics']['parameters']['query']>> = true;
export const PARAMETERS_MATCH_DOCUMENT = listParamsMatch && analyticsParamsMatch;
