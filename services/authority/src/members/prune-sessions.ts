import { deleteInBatches } from '@feedback/database';
import type { PrismaClient } from '../generated/prisma/client.js';

export interface SessionPruneOptions {
  /** Sessions one statement deletes. Default: 10000. */
  batchSize?: number;
  /** Aborted when the service stops: no further batch is started. */
  signal?: AbortSignal;
}

/**
 * Deletes sessions that have expired or ended (an ended session's expiry is when it ended): no
 * token of theirs counts any more, so their rows are of no further use. Answers how many.
 */
export function pruneMemberSessions(prisma: PrismaClient, options: SessionPruneOptions = {}): Promise<number> {
  return deleteInBatches(
    { query: async (text, values) => ({ rowCount: await prisma.$executeRawUnsafe(text, ...values) }) },
    {
      text: `DELETE FROM authority.member_sessions WHERE id IN (
               SELECT id FROM authority.member_sessions WHERE expires_at <= now() ORDER BY expires_at LIMIT $1)`,
      values: [],
    },
    options.batchSize ?? 10_000,
    options.signal,
  );
}
