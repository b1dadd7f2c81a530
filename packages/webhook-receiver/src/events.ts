import type { FromSchema } from 'json-schema-to-ts';
import type { EVENT_DATA_SCHEMAS, EventName } from '@feedback/contracts/events';

/** The envelope of one event of name `N` (specification section 2.5), with its typed `data`. */
export interface EventOf<N extends EventName> {
  /**
   * The delivery id: one per event and endpoint, the same on every retry and redelivery.
   * Deduplicate on it (a second endpoint to the same receiver brings the event under another id).
   */
  id: string;
  event: N;
  /** When the event happened, ISO 8601 UTC. */
  created_at: string;
  app: { id: number; public_key: string };
  data: FromSchema<(typeof EVENT_DATA_SCHEMAS)[N]>;
}

/** Every event this library version knows, discriminated by `event`. */
export type WebhookEvent = { [N in EventName]: EventOf<N> }[EventName];

/**
 * An event newer than this library version: delivered as it came, so a receiver keeps working
 * (and can ignore it) when the service adds an event before the library is upgraded.
 */
export interface UnknownWebhookEvent {
  id: string;
  event: string;
  created_at: string;
  app: { id: number; public_key: string };
  data: Record<string, unknown>;
}

export type { EventName };
