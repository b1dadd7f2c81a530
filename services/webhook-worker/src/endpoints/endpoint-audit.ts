import { randomUUID } from 'node:crypto';
import type { Prisma, PrismaClient } from '../generated/prisma/client.js';

/** What an audit entry records: an action on one endpoint, by a member or (null) by the service. */
export interface AuditAction {
  appId: number;
  endpointId: string;
  endpointName: string;
  action: 'paused' | 'resumed' | 'recovery_started' | 'recovery_cancelled' | 'recovery_finished';
  actorName: string | null;
  detail?: string | null;
}

/** Writes an audit entry, in the transaction given (or on its own). */
export function writeAudit(db: Prisma.TransactionClient | PrismaClient, entry: AuditAction) {
  return db.endpointAuditEntry.create({
    data: { id: randomUUID(), appId: entry.appId, endpointId: entry.endpointId, endpointName: entry.endpointName, action: entry.action, actorName: entry.actorName, detail: entry.detail ?? null },
  });
}

/** Ends the running recovery of a paused endpoint: it would send to an endpoint that takes nothing. */
export const CANCEL_RECOVERY_SQL = (endpoint: string) =>
  `UPDATE webhooks.recoveries SET state = 'cancelled', ended_at = now() WHERE endpoint_id = ${endpoint} AND state = 'running'`;
