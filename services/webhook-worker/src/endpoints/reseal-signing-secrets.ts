import type pg from 'pg';
import type { Logger } from '@feedback/logging';
import { PeriodicTask } from '@feedback/service-runtime';
import type { SecretBox } from './signing-secrets.js';

export interface ResealResult {
  /** Secrets a previous key had sealed, now sealed under the current one. */
  resealed: number;
  /** Secrets no configured key opens: their deliveries fail until the key that sealed them is given. */
  unreadable: number;
}

const BATCH = 500;

/**
 * Seals again, under the current key, every signing secret a previous key sealed, so that the
 * previous key can be dropped. Workers may run it at the same time, and endpoints may be rotated
 * meanwhile: each row is written only if it still holds what was read, so a rotation (or another
 * worker's re-seal) in between stands. An endpoint's `updated_at` stays: nothing a member set
 * changed. Stops between batches once `signal` is aborted.
 */
export async function resealSigningSecrets(pool: pg.Pool, secrets: SecretBox, signal?: AbortSignal): Promise<ResealResult> {
  const result: ResealResult = { resealed: 0, unreadable: 0 };
  let after: string | undefined;
  while (!signal?.aborted) {
    const { rows } = await pool.query<{ id: string; secret_encrypted: string }>(
      `SELECT id, secret_encrypted FROM webhooks.webhook_endpoints WHERE $1::uuid IS NULL OR id > $1 ORDER BY id LIMIT ${BATCH}`,
      [after ?? null],
    );
    if (rows.length === 0) break;
    const ids: string[] = [];
    const was: string[] = [];
    const sealed: string[] = [];
    for (const row of rows) {
      const found = secrets.inspect(row.secret_encrypted, row.id);
      if (found.sealedWith === 'previous') {
        ids.push(row.id);
        was.push(row.secret_encrypted);
        sealed.push(secrets.seal(found.secret, row.id));
      } else if (found.sealedWith === 'unreadable') {
        result.unreadable += 1;
      }
    }
    if (ids.length > 0) {
      const { rowCount } = await pool.query(
        `UPDATE webhooks.webhook_endpoints e SET secret_encrypted = r.sealed
         FROM unnest($1::uuid[], $2::text[], $3::text[]) AS r(id, was, sealed)
         WHERE e.id = r.id AND e.secret_encrypted = r.was`,
        [ids, was, sealed],
      );
      result.resealed += rowCount ?? 0;
    }
    after = rows[rows.length - 1]!.id;
  }
  return result;
}

/**
 * Checks, at start-up, that the configured keys open every signing secret, and says in the log
 * as an error how many they do not: a worker given a new SIGNING_SECRET_ENCRYPTION_KEY without the
 * old one among SIGNING_SECRET_PREVIOUS_KEYS would otherwise only show it as deliveries that never
 * go. Again every day; while previous keys are set, every ten minutes, re-sealing what they opened
 * (a worker still running with the previous key as its current one, during a key change, may seal
 * more), and saying when none is left, so the operator knows the previous key may go.
 */
export function signingSecretResealing(pool: pg.Pool, secrets: SecretBox, logger: Logger): PeriodicTask {
  return new PeriodicTask({
    name: secrets.hasPreviousKeys ? 'sealing signing secrets again under the current key' : 'checking that the configured key opens every signing secret',
    firstRunAfterMs: 1000,
    intervalMs: secrets.hasPreviousKeys ? 600_000 : 86_400_000,
    logger,
    run: async (signal) => {
      const { resealed, unreadable } = await resealSigningSecrets(pool, secrets, signal);
      if (signal.aborted) return;
      if (unreadable > 0) {
        logger.error(
          'signing secrets that no configured key opens: their endpoints get no delivery until the key that sealed them is in SIGNING_SECRET_ENCRYPTION_KEY or SIGNING_SECRET_PREVIOUS_KEYS',
          { unreadable, resealed },
        );
      } else if (secrets.hasPreviousKeys) {
        logger.info('every signing secret is sealed under the current key: SIGNING_SECRET_PREVIOUS_KEYS may be removed', { resealed });
      }
    },
  });
}
