import DataLoader from 'dataloader';

export interface StatementBatchOptions {
  /** Statements of this kind running at once; requests made meanwhile wait and go together. Default: 2. */
  concurrency?: number;
  /** Most requests one statement carries. */
  maxBatchSize: number;
  /**
   * For statements off the path a delivery waits on: how long a request that finds a slot free
   * waits for others to join it. Default: 0 (the next turn of the event loop).
   */
  gatherMs?: number;
}

/** Requests gathered into statements: `load(key)` answers that key's value. */
export type StatementBatches<K, V> = DataLoader<K, V>;

/**
 * Requests for one kind of statement (fan-out, load, record), grouped the way a database groups
 * commits: while fewer than `concurrency` such statements run, a request goes at the next turn
 * of the event loop with whatever arrived in the same turn, so a quiet service adds no waiting;
 * while they all run, new requests gather and go as one statement when one of them finishes, so
 * a busy one sends fewer, larger statements instead of queueing many small ones.
 *
 * `run` answers one value per key, in order (DataLoader's contract), or an Error for a key that failed alone.
 */
export function statementBatches<K, V>(run: (keys: readonly K[]) => Promise<Array<V | Error>>, options: StatementBatchOptions): StatementBatches<K, V> {
  const concurrency = options.concurrency ?? 2;
  let slotsTaken = 0;
  const waiting: Array<() => void> = [];
  const release = () => {
    // A slot passes straight to the next waiting batch, so none can jump ahead of it.
    const next = waiting.shift();
    if (next) setImmediate(next);
    else slotsTaken -= 1;
  };
  return new DataLoader<K, V>(
    async (keys) => {
      try {
        return await run(keys);
      } finally {
        release();
      }
    },
    {
      cache: false,
      maxBatchSize: options.maxBatchSize,
      batchScheduleFn: (dispatch) => {
        if (slotsTaken < concurrency) {
          slotsTaken += 1;
          if (options.gatherMs) setTimeout(dispatch, options.gatherMs);
          else setImmediate(dispatch);
        } else {
          waiting.push(dispatch);
        }
      },
    },
  );
}
