/** Every event name of specification section 6. */
export const EVENT_NAMES = [
  'suggestion.created',
  'suggestion.status_changed',
  'suggestion.commented',
  'ticket.created',
  'ticket.status_changed',
  'ticket.replied',
  'survey.response.created',
  'webhook.ping',
] as const;
export type EventName = (typeof EVENT_NAMES)[number];
