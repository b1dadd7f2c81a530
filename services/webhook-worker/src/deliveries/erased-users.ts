import { createHash } from 'node:crypto';
import type pg from 'pg';
import { erasureHashKeyId } from '@feedback/contracts';
import { isErasedPayloadSql } from './erased-payload.js';

/**
 * The erasure hash key (ERASURE_HASH_KEY) as SQL computes HMAC-SHA-256 with it: the key XORed
 * with HMAC's inner and outer pads. Statements take them as one `text[]` parameter, so the key
 * never sits in the database, and a reader of the erasure list cannot test guesses of user ids.
 */
export class ErasureHashKey {
  /** [inner pad, outer pad], each 64 bytes in hex: the `text[]` parameter of namesErasedUserSql. */
  readonly pads: [string, string];
  /** The key's id, as the api puts it in each erasure event. */
  readonly id: string;

  constructor(key: Buffer) {
    this.id = erasureHashKeyId(key);
    // HMAC hashes a key longer than SHA-256's block first (RFC 2104).
    const block = Buffer.alloc(64);
    (key.length > 64 ? createHash('sha256').update(key).digest() : key).copy(block);
    this.pads = [Buffer.from(block.map((byte) => byte ^ 0x36)).toString('hex'), Buffer.from(block.map((byte) => byte ^ 0x5c)).toString('hex')];
  }
}

/** SQL: erasedUserHash (contracts) of `text` for app `appId`, with the pads in parameter `pads`. */
export const userHashSql = (appId: string, text: string, pads: string) =>
  `encode(sha256(decode((${pads})[2], 'hex') || sha256(decode((${pads})[1], 'hex') || convert_to(${appId} || ':' || ${text}, 'UTF8'))), 'hex')`;

/** SQL: the external id of `identity` (author, sender) in envelope column `payload`. */
export const externalIdSql = (payload: string, identity: 'author' | 'sender') => `(${payload} -> 'data' -> '${identity}' ->> 'external_id')`;

/** SQL: when the event in envelope column `payload` was written; an envelope without a time counts as written before any erasure. */
export const eventTimeSql = (payload: string) => `coalesce((${payload} ->> 'created_at')::timestamptz, '-infinity')`;

/**
 * SQL: how long after an erasure an event still counts as written before it. Its time and the
 * erasure's come from different api instances, whose clocks may differ by a little; a user's
 * writes within that margin after the erasure are withheld too.
 */
export const ERASURE_CLOCK_MARGIN_SQL = "interval '1 minute'";

/**
 * SQL: whether the envelope of delivery row `delivery` names an end user erased since its event
 * was written, or was erased already (its payload replaced, see recordErasure). `pads` is the
 * parameter holding ErasureHashKey.pads. A user who writes again after an erasure is delivered
 * as anyone else: the api keeps what they write from then on.
 *
 * Erasures recorded before the key existed hold a plain SHA-256 (`keyed` false). They match on it
 * until the history's retention prunes them; a partial index keeps that check to a probe.
 */
export const namesErasedUserSql = (delivery: string, pads: string) => {
  const app = `${delivery}.app_id`;
  const author = externalIdSql(`${delivery}.payload`, 'author');
  const sender = externalIdSql(`${delivery}.payload`, 'sender');
  const plain = (text: string) => `encode(sha256(convert_to(${app} || ':' || ${text}, 'UTF8')), 'hex')`;
  const writtenBy = `p.erased_at + ${ERASURE_CLOCK_MARGIN_SQL} >= ${eventTimeSql(`${delivery}.payload`)}`;
  return `(${isErasedPayloadSql(`${delivery}.payload`)} OR EXISTS (
  SELECT 1 FROM webhooks.privacy_erasures p
  WHERE p.app_id = ${app} AND p.keyed AND p.user_hash IN (${userHashSql(app, author, pads)}, ${userHashSql(app, sender, pads)}) AND ${writtenBy}
) OR EXISTS (
  SELECT 1 FROM webhooks.privacy_erasures p
  WHERE p.app_id = ${app} AND NOT p.keyed AND p.user_hash IN (${plain(author)}, ${plain(sender)}) AND ${writtenBy}
))`;
};

/**
 * Deletes erasures recorded more than `retentionDays` ago; answers how many. By then every
 * delivery they could match is pruned, and an event written before them has long been fanned out.
 */
export async function pruneErasures(pool: pg.Pool, retentionDays: number): Promise<number> {
  const { rowCount } = await pool.query('DELETE FROM webhooks.privacy_erasures WHERE erased_at < now() - make_interval(days => $1)', [retentionDays]);
  return rowCount ?? 0;
}
