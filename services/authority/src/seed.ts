// Creates a team with one app and prints the app's secret key, once. Until the dashboard
// exists this is how a new user gets a key to call the API with:
//   DATABASE_URL=... node services/authority/dist/seed.js "Acme" pro "Acme iOS" suggestions:write
// The optional fourth argument grants extra scopes (comma-separated), as a member would.
import { SCOPE_NAMES } from '@feedback/contracts';
import { createLogger } from '@feedback/logging';
import { loadConfig, url } from '@feedback/config';
import { connectAuthorityDatabase, migrateAuthorityDatabase } from './database.js';
import { createApp, createTeam } from './tenancy/create-app.js';

const { values } = loadConfig({
  DATABASE_URL: url({ description: 'PostgreSQL URL', protocols: ['postgresql', 'postgres'] }),
});
const [teamName = 'Demo team', plan = 'pro', appName = 'Demo app', extraScopes = ''] = process.argv.slice(2);
const grants = extraScopes.split(',').filter((scope) => scope !== '');
const unknown = grants.filter((scope) => !(SCOPE_NAMES as readonly string[]).includes(scope));
if (unknown.length > 0) {
  process.stderr.write(`unknown scope ${unknown.join(', ')}; scopes are ${SCOPE_NAMES.join(', ')}\n`);
  process.exit(2);
}
if (!['free', 'starter', 'pro'].includes(plan)) {
  process.stderr.write(`plan must be free, starter or pro, got "${plan}"\n`);
  process.exit(2);
}
const logger = createLogger({ service: 'authority-seed', level: 'warn' });
await migrateAuthorityDatabase(values.DATABASE_URL, logger);
const prisma = connectAuthorityDatabase(values.DATABASE_URL);
const team = await createTeam(prisma, { name: teamName, plan: plan as 'free' | 'starter' | 'pro' });
const { app, secretKey } = await createApp(prisma, { teamId: team.id, name: appName });
if (grants.length > 0) {
  await prisma.apiKey.update({ where: { appId: app.id }, data: { scopes: { push: grants } } });
}
await prisma.$disconnect();
// The one place a secret key is printed: to the member's own terminal, as the dashboard would show it.
process.stdout.write(
  `${JSON.stringify({ team_id: team.id, app_id: app.id, public_key: app.publicKey, secret_key: secretKey }, null, 2)}\n`,
);
