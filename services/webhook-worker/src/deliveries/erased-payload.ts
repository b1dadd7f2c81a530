import type { Prisma } from '../generated/prisma/client.js';

/**
 * What an erasure leaves of a delivery's stored envelope (see recordErasure): a marker, and
 * nothing about the user. A delivery holding it is never sent again.
 */
export const ERASED_PAYLOAD = { erased: true } as const;

/** The marker as stored JSON text, for plain SQL. */
export const ERASED_PAYLOAD_JSON = JSON.stringify(ERASED_PAYLOAD);

/** SQL: whether the payload column `payload` holds the marker. */
export const isErasedPayloadSql = (payload: string) => `${payload} ? 'erased'`;

export function isErasedPayload(payload: Prisma.JsonValue): boolean {
  return typeof payload === 'object' && payload !== null && !Array.isArray(payload) && payload['erased'] === true;
}
