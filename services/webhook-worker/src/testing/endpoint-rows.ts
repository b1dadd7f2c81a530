import { randomUUID } from 'node:crypto';
import type pg from 'pg';

/**
 * For tests: an endpoint row of app 1 selecting `suggestion.created`, written straight to the
 * table (no URL check, no sealing unless given a sealed secret), made now unless told; answers its id.
 */
export async function insertEndpoint(
  pool: pg.Pool,
  fields: { teamId?: string; name?: string; url?: string; sealedSecret?: string; createdAt?: Date } = {},
): Promise<string> {
  const id = randomUUID();
  await pool.query(
    `INSERT INTO webhooks.webhook_endpoints (id, team_id, app_id, name, url, events, secret_encrypted, created_at)
     VALUES ($1, $2, 1, $3, $4, '{suggestion.created}', $5, coalesce($6, now()))`,
    [id, fields.teamId ?? randomUUID(), fields.name ?? 'E', fields.url ?? 'https://example.com/hooks', fields.sealedSecret ?? 'sealed', fields.createdAt ?? null],
  );
  return id;
}
