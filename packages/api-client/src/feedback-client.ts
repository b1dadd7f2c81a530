import { randomUUID } from 'node:crypto';
import type {
  Analytics,
  AnalyticsParams,
  CreateOptions,
  CreateSuggestionBody,
  CreateTicketBody,
  ErasureResult,
  ListParams,
  Suggestion,
  SuggestionPage,
  Ticket,
  TicketPage,
  UserDataExport,
} from './api-types.js';
import { HttpTransport } from './http-transport.js';
import { OPERATIONS } from './operations.js';

export interface FeedbackClientOptions {
  /** The app's secret key, `sk_live_…`. Keep it on your servers. */
  secretKey: string;
  /** Where the API is, e.g. `https://api.feedback.example` (no `/api/v1`). Required. */
  baseUrl: string;
  /** Time limit of one attempt, in milliseconds. Default: 30000. */
  timeoutMs?: number;
  /** Retries after a 429, a 5xx or a network error. Default: 2. */
  maxRetries?: number;
  /** Longest Retry-After honoured, in milliseconds; a longer one is answered as RateLimitError at once. Default: 60000. */
  maxRetryAfterMs?: number;
  /** The User-Agent header. Default: `feedback-api-client/0.1`. */
  userAgent?: string;
}

const instant = (value: Date | string | undefined) => (value instanceof Date ? value.toISOString() : value);
const listQuery = (params: ListParams) => ({
  limit: params.limit === undefined ? undefined : String(params.limit),
  cursor: params.cursor,
  updated_since: instant(params.updated_since),
});

/** The operations on one list: a page, every item, and an `updated_since` sweep. */
export interface ListResource<T, P> {
  /** One page: `{ data, next_cursor }`. */
  list(params?: ListParams): Promise<P>;
  /** Every item, page after page, until `next_cursor` is null. */
  listAll(params?: Omit<ListParams, 'cursor'>): AsyncIterable<T>;
  /** Every item updated at or after `since`, oldest update first, through every page. */
  listUpdatedSince(since: Date, params?: Omit<ListParams, 'cursor' | 'updated_since'>): AsyncIterable<T>;
}

function listResource<T, P extends { data: T[]; next_cursor: string | null }>(transport: HttpTransport, path: string): ListResource<T, P> {
  const list = (params: ListParams = {}) => transport.call<P>('get', path, { query: listQuery(params) });
  async function* listAll(params: Omit<ListParams, 'cursor'> = {}): AsyncIterable<T> {
    let cursor: string | undefined;
    do {
      const page = await list({ ...params, cursor });
      yield* page.data;
      cursor = page.next_cursor ?? undefined;
    } while (cursor !== undefined);
  }
  return { list, listAll, listUpdatedSince: (since, params = {}) => listAll({ ...params, updated_since: since }) };
}

/**
 * A client of the REST API v1 for one app, authenticated with its secret key. Calls answer the
 * API's JSON, typed from its OpenAPI document; failures throw `FeedbackApiError` (and subclasses)
 * or `FeedbackConnectionError`.
 */
export class FeedbackClient {
  readonly suggestions: ListResource<Suggestion, SuggestionPage> & {
    /** Creates a suggestion on behalf of one of your users (`suggestions:write`). */
    create(body: CreateSuggestionBody, options?: CreateOptions): Promise<Suggestion>;
  };
  readonly tickets: ListResource<Ticket, TicketPage> & {
    /** Opens a ticket with its first message on behalf of one of your users (`tickets:write`). */
    create(body: CreateTicketBody, options?: CreateOptions): Promise<Ticket>;
  };
  readonly analytics: {
    /** Counts over a period (`analytics:read`); default the last 30 days. */
    get(params?: AnalyticsParams): Promise<Analytics>;
  };
  readonly privacy: {
    /** Everything held about one of your users (`privacy:read`). */
    exportUser(externalId: string): Promise<UserDataExport>;
    /** Erases one of your users; idempotent (`privacy:write`). */
    eraseUser(externalId: string): Promise<ErasureResult>;
  };

  constructor(options: FeedbackClientOptions) {
    if (!options.secretKey?.startsWith('sk_live_')) throw new TypeError('secretKey must be the app\'s secret key, "sk_live_…"');
    if (!options.baseUrl) throw new TypeError('baseUrl is required, e.g. "https://api.feedback.example"');
    const transport = new HttpTransport({
      secretKey: options.secretKey,
      baseUrl: options.baseUrl,
      timeoutMs: options.timeoutMs ?? 30_000,
      maxRetries: options.maxRetries ?? 2,
      maxRetryAfterMs: options.maxRetryAfterMs ?? 60_000,
      userAgent: options.userAgent ?? 'feedback-api-client/0.1',
    });
    // One key per create call, so each of its retries is recognised as the same request.
    const create = <T>(path: string) => (body: unknown, createOptions: CreateOptions = {}) =>
      transport.call<T>('post', path, { body, headers: { 'idempotency-key': createOptions.idempotencyKey ?? randomUUID() } });
    const userPath = (externalId: string) => OPERATIONS['privacy.exportUser'].path.replace('{externalId}', encodeURIComponent(externalId));

    this.suggestions = { ...listResource<Suggestion, SuggestionPage>(transport, OPERATIONS['suggestions.list'].path), create: create<Suggestion>(OPERATIONS['suggestions.create'].path) };
    this.tickets = { ...listResource<Ticket, TicketPage>(transport, OPERATIONS['tickets.list'].path), create: create<Ticket>(OPERATIONS['tickets.create'].path) };
    this.analytics = {
      get: (params = {}) => transport.call<Analytics>('get', OPERATIONS['analytics.get'].path, { query: { from: instant(params.from), to: instant(params.to) } }),
    };
    this.privacy = {
      exportUser: (externalId) => transport.call<UserDataExport>('get', userPath(externalId)),
      eraseUser: (externalId) => transport.call<ErasureResult>('delete', userPath(externalId)),
    };
  }
}
