// Generates each service's Prisma client from its prisma/schema.prisma.
//
// `prisma generate` itself needs no native engine (it uses WebAssembly), but the CLI checks for the
// schema-engine binary first and tries to download it from outside the npm registry. Migrations are
// applied by our own runner (packages/database), so we point that check at a placeholder.
// See docs/decisions.md.
import { spawnSync } from 'node:child_process';
import { readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const services = readdirSync(join(root, 'services')).filter((name) =>
  existsSync(join(root, 'services', name, 'prisma', 'schema.prisma')),
);
const env = { ...process.env, PRISMA_HIDE_UPDATE_MESSAGE: '1' };
env.PRISMA_SCHEMA_ENGINE_BINARY ??= process.execPath;

for (const service of services) {
  const cwd = join(root, 'services', service);
  const result = spawnSync('pnpm', ['exec', 'prisma', 'generate'], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  if (result.status !== 0) {
    process.stderr.write(result.stdout);
    process.stderr.write(result.stderr);
    console.error(`prisma generate failed for services/${service}`);
    process.exit(result.status ?? 1);
  }
  console.log(`generated Prisma client for services/${service}`);
}
