/** Items the sweep hands over: records with their last change time. */
export interface UpdatedRecord {
  updated_at: string;
}

/**
 * Where the REST API's lists were swept to: in each, the latest `updated_at` seen (ISO 8601), or,
 * while the list has brought nothing, where its sweeps start. One per list, because the lists are
 * swept one after the other: a suggestion changed while the tickets were being read is older than
 * the newest ticket, and one shared checkpoint would start the next sweep of suggestions after it.
 * Keep it whole (as JSON, say) and pass it back as the next sweep's `since`.
 */
export interface RecoveryCheckpoint {
  suggestions: string;
  tickets: string;
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
   * The previous sweep's `checkpoint`, or on a first run how far back to look (both lists from
   * there). Not the time of the last webhook handled: an earlier delivery may still be failing.
   */
  since: RecoveryCheckpoint | Date;
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
  /** Where the next sweep starts: keep it, and pass it back as `since`. */
  checkpoint: RecoveryCheckpoint;
}

/**
 * A sweep failed part of the way (a handler threw, or a list could not be read: `failures`, the
 * first as `cause`). What was handled before the failure counts: `checkpoint` holds it, so keep
 * it and pass it back as `since`, as after a sweep that succeeded. A list that failed does not
 * keep the other from being swept.
 */
export class RecoveryError extends Error {
  override readonly name = 'RecoveryError';
  constructor(
    readonly checkpoint: RecoveryCheckpoint,
    readonly failures: ReadonlyArray<{ list: keyof RecoveryCheckpoint; error: unknown }>,
    /** Items handed over before the failures, by list. */
    readonly handled: { suggestions: number; tickets: number },
  ) {
    const first = failures[0]!;
    super(
      `recovery failed in ${failures.map((failure) => failure.list).join(' and ')}: ${first.error instanceof Error ? first.error.message : String(first.error)} (keep this error's checkpoint and sweep again from it)`,
      { cause: first.error },
    );
  }
}

/**
 * Sweeps one list from `since` less the overlap, handing each item over in order; answers how
 * many came and the latest `updated_at` among those handled (`since` itself when none came), and
 * what failed, if anything did, with the progress made before it.
 */
async function sweepList<R extends UpdatedRecord>(
  list: { listUpdatedSince(since: Date): AsyncIterable<R> },
  since: string,
  overlapMs: number,
  handle: (item: R) => Promise<void> | void,
): Promise<{ count: number; latest: string; failure?: { error: unknown } }> {
  let latest = since;
  let count = 0;
  try {
    for await (const item of list.listUpdatedSince(new Date(Date.parse(since) - overlapMs))) {
      await handle(item);
      if (Date.parse(item.updated_at) > Date.parse(latest)) latest = item.updated_at;
      count += 1;
    }
  } catch (error) {
    return { count, latest, failure: { error } };
  }
  return { count, latest };
}

/**
 * Catches up with what webhooks did not bring (specification section 4): sweeps both lists
 * through every page from where each got to, minus the overlap, and hands each item to your
 * handler in order. An item changed during the sweep can come twice. Run at start-up and
 * periodically. A failure in one list stops that list only; the sweep then throws a
 * `RecoveryError` carrying the checkpoint of what was handled.
 */
export async function recoverMissedWebhooks<S extends UpdatedRecord, T extends UpdatedRecord>(options: RecoveryOptions<S, T>): Promise<RecoveryResult> {
  const since: RecoveryCheckpoint =
    options.since instanceof Date ? { suggestions: options.since.toISOString(), tickets: options.since.toISOString() } : options.since;
  for (const list of ['suggestions', 'tickets'] as const) {
    if (Number.isNaN(Date.parse(since[list]))) throw new TypeError(`not a checkpoint: ${JSON.stringify(since[list])} is no time`);
  }
  const overlapMs = options.overlapMs ?? 60_000;
  const suggestions = await sweepList(options.source.suggestions, since.suggestions, overlapMs, (item) => options.onSuggestion(item));
  const tickets = await sweepList(options.source.tickets, since.tickets, overlapMs, (item) => options.onTicket(item));
  const checkpoint = { suggestions: suggestions.latest, tickets: tickets.latest };
  const failures = Object.entries({ suggestions, tickets }).flatMap(([list, swept]) =>
    swept.failure ? [{ list: list as keyof RecoveryCheckpoint, error: swept.failure.error }] : [],
  );
  if (failures.length > 0) throw new RecoveryError(checkpoint, failures, { suggestions: suggestions.count, tickets: tickets.count });
  return { suggestions: suggestions.count, tickets: tickets.count, checkpoint };
}
