/**
 * Every /api/v1 operation of the OpenAPI document and the client method that calls it. The drift
 * test compares this table with the document the running api publishes.
 */
export const OPERATIONS = {
  'suggestions.create': { operationId: 'createSuggestion', method: 'post', path: '/api/v1/suggestions' },
  'suggestions.list': { operationId: 'listSuggestions', method: 'get', path: '/api/v1/suggestions' },
  'tickets.create': { operationId: 'createTicket', method: 'post', path: '/api/v1/tickets' },
  'tickets.list': { operationId: 'listTickets', method: 'get', path: '/api/v1/tickets' },
  'analytics.get': { operationId: 'getAnalytics', method: 'get', path: '/api/v1/analytics' },
  'privacy.exportUser': { operationId: 'exportUserData', method: 'get', path: '/api/v1/privacy/users/{externalId}' },
  'privacy.eraseUser': { operationId: 'eraseUserData', method: 'delete', path: '/api/v1/privacy/users/{externalId}' },
} as const;
