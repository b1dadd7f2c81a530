export { FeedbackClient } from './feedback-client.js';
export type { FeedbackClientOptions, ListResource } from './feedback-client.js';
export { FeedbackApiError, AuthenticationError, InsufficientScopeError, RateLimitError, FeedbackConnectionError } from './errors.js';
export { OPERATIONS } from './operations.js';
export type {
  Suggestion,
  Ticket,
  CreateSuggestionBody,
  CreateTicketBody,
  SuggestionPage,
  TicketPage,
  Analytics,
  AnalyticsParams,
  UserDataExport,
  ErasureResult,
  ListParams,
  CreateOptions,
} from './api-types.js';
