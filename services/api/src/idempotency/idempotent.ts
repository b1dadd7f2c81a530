import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import stableStringify from 'safe-stable-stringify';
import type { Prisma, PrismaClient } from '../database.js';
import { ApiError } from '../http/api-error.js';

export interface Outcome {
  status: number;
  body: unknown;
  /** True when this is the stored answer to an earlier request with the same key. */
  replayed?: boolean;
}

const KEY_SHAPE = /^[\x21-\x7e]{1,255}$/;

/**
 * What erasure leaves of a stored answer that named the erased user (see eraseUserData): no
 * trace of the request or its answer, and for a retry with the same key, 410 `user_erased`
 * instead of running the request again, which would bring the erased data back.
 */
export const ERASED_REQUEST_HASH = 'erased';
export const ERASED_OUTCOME = {
  status: 410,
  body: {
    error: 'user_erased',
    message: 'The answer to this request named a user whose data has since been erased. It is not repeated, and the request is not run again.',
  },
} as const;

/** The Idempotency-Key header, if sent and well formed. */
export function idempotencyKeyOf(request: Request): string | undefined {
  const key = request.get('idempotency-key');
  if (key === undefined) return undefined;
  if (!KEY_SHAPE.test(key)) {
    throw new ApiError('validation_failed', 'Idempotency-Key must be 1 to 255 visible ASCII characters.', { field: 'Idempotency-Key' });
  }
  return key;
}

/**
 * What makes two requests the same request: the method, the route (not the path as written, which
 * may differ in letter case or a trailing slash and still reach it), and the body with its keys
 * in a fixed order (a client that rebuilds the body, say from a jsonb column, may reorder them).
 */
function requestHashOf(request: Request): string {
  const route = `${request.baseUrl}${typeof request.route?.path === 'string' ? request.route.path : request.path}`.toLowerCase();
  return `${REQUEST_HASH_VERSION}${createHash('sha256').update(`${request.method} ${route}\n${stableStringify(request.body ?? null)}`).digest('hex')}`;
}

/** Marks hashes made as above; a stored hash without it was made the first way (legacyRequestHashOf). */
const REQUEST_HASH_VERSION = 'v2:';

/** The hash kept with keys stored before REQUEST_HASH_VERSION: the path as written, the body's keys as sent. */
function legacyRequestHashOf(request: Request): string {
  return createHash('sha256').update(`${request.method} ${request.baseUrl}${request.path}\n${JSON.stringify(request.body ?? null)}`).digest('hex');
}

/** Whether a stored hash is this request's, however it was made. */
function sameRequest(storedHash: string, requestHash: string, request: Request): boolean {
  return storedHash.startsWith(REQUEST_HASH_VERSION) ? storedHash === requestHash : storedHash === legacyRequestHashOf(request);
}

/**
 * Runs a create once per (app, Idempotency-Key). The key is claimed in the same transaction as
 * the work, so a retry that arrives while the first is still running waits for it and then gets
 * its answer; a retry after a failure that rolled back runs afresh. The same key with another
 * method, path or body is refused.
 */
export async function idempotent(
  prisma: PrismaClient,
  claim: { appId: number; key: string | undefined; request: Request },
  run: (tx: Prisma.TransactionClient) => Promise<Outcome>,
): Promise<Outcome> {
  const { key, appId } = claim;
  if (key === undefined) return prisma.$transaction(run);
  const requestHash = requestHashOf(claim.request);
  return prisma.$transaction(async (tx) => {
    const claimed = async () => (await tx.idempotencyRecord.createMany({ data: [{ appId, key, requestHash }], skipDuplicates: true })).count === 1;
    const where = { appId_key: { appId, key } };
    let earlier = null;
    if (!(await claimed())) {
      earlier = await tx.idempotencyRecord.findUnique({ where });
      // Seen, then gone: retention pruning deleted the key in between, so this is a new request.
      if (earlier === null && !(await claimed())) earlier = await tx.idempotencyRecord.findUniqueOrThrow({ where });
    }
    if (earlier !== null) {
      if (earlier.requestHash === ERASED_REQUEST_HASH) return { ...ERASED_OUTCOME, replayed: true };
      if (!sameRequest(earlier.requestHash, requestHash, claim.request)) {
        throw new ApiError('idempotency_key_reused', 'This Idempotency-Key was used for a different request. Use a new key for a new request.');
      }
      if (earlier.responseStatus === null) throw new ApiError('idempotency_in_progress', 'A request with this Idempotency-Key is still running.');
      return { status: earlier.responseStatus, body: earlier.responseBody, replayed: true };
    }
    const outcome = await run(tx);
    await tx.idempotencyRecord.update({
      where,
      data: { responseStatus: outcome.status, responseBody: outcome.body as Prisma.InputJsonValue },
    });
    return outcome;
  });
}

/** Writes the outcome; a replay says so in `Idempotent-Replayed: true`. */
export function sendOutcome(response: Response, outcome: Outcome): void {
  if (outcome.replayed) response.setHeader('Idempotent-Replayed', 'true');
  response.status(outcome.status).json(outcome.body);
}
