/** Items the sweep hands over: records with their last change time. */
export interface UpdatedRecord {
  updated_at: string;
}

/**
 * Where the sweep reads: the REST API's two lists, every page of items updated since a time,
 * oldest change first. `FeedbackClient` of @feedback/api-client is one.
 */
export interface RecoverySource<S extends UpdatedRecord, T extends UpdatedRecord> {
  suggestions: { listUpdatedSince(since: Date): AsyncIterable<S> };
  tickets: { listUpdatedSince(since: Date): AsyncIterable<T> };
}

export interface RecoveryOptions<S extends UpdatedRecord, T extends UpdatedRecord> {
  /**
   * Where the previous sweep got to (its `latestUpdatedAt`), or how far back to look on a first
   * run. Not the time of the last webhook handled: an earlier delivery may still be failing.
   */
  since: Date;
  source: RecoverySource<S, T>;
  /** Your idempotent handler for a suggestion: it may see one it already has. */
  onSuggestion(suggestion: S): Promise<void> | void;
  /** Your idempotent handler for a ticket. */
  onTicket(ticket: T): Promise<void> | void;
  /** How far before `since` to start, for transactions that committed late with an earlier time. Default: 60000 (a minute). */
  overlapMs?: number;
}

export interface RecoveryResult {
  suggestions: number;
  tickets: number;
  /** The latest `updated_at` seen: a checkpoint to keep. Null when nothing changed. */
  latestUpdatedAt: string | null;
}

/**
 * Catches up with what webhooks did not bring (specification section 4): sweeps both lists
 * through every page from `since`, minus the overlap, and hands each item to your handler in
 * order. An item changed during the sweep can come twice. Run at start-up and periodically.
 */
export async function recoverMissedWebhooks<S extends UpdatedRecord, T extends UpdatedRecord>(options: RecoveryOptions<S, T>): Promise<RecoveryResult> {
  const from = new Date(options.since.getTime() - (options.overlapMs ?? 60_000));
  let latest: string | null = null;
  const note = (updatedAt: string) => {
    if (latest === null || Date.parse(updatedAt) > Date.parse(latest)) latest = updatedAt;
  };
  let suggestions = 0;
  for await (const suggestion of options.source.suggestions.listUpdatedSince(from)) {
    await options.onSuggestion(suggestion);
    note(suggestion.updated_at);
    suggestions += 1;
  }
  let tickets = 0;
  for await (const ticket of options.source.tickets.listUpdatedSince(from)) {
    await options.onTicket(ticket);
    note(ticket.updated_at);
    tickets += 1;
  }
  return { suggestions, tickets, latestUpdatedAt: latest };
}
