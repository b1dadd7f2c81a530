import { randomUUID } from 'node:crypto';
import type pg from 'pg';

/**
 * For tests: an endpoint row of app 1 selecting `suggestion.created`, written straight to the
 * table (no URL check, no sealing unless given a sealed secret); answers its id.
 */
export async function insertEndpoint(
  pool: pg.Pool,
  fields: { teamId?: string; name?: string; url?: string; sealedSecret?: string } = {},
): Promise<string> {
  const id = randomUUID();
  await pool.query(
    `INSERT INTO webhooks.webhook_endpoints (id, team_id, app_id, name, url, events, secret_encrypted)
     VALUES ($1, $2, 1, $3, $4, '{suggestion.created}', $5)`,
    [id, fields.teamId ?? randomUUID(), fields.name ?? 'E', fields.url ?? 'https://example.com/hooks', fields.sealedSecret ?? 'sealed'],
  );
  return id;
}
