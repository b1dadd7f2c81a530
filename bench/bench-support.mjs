// What both benchmarks need: a database and a broker namespace of their own, the base
// environment of the services, a silent logger, and the built modules they start.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import winston from 'winston';

export const root = fileURLToPath(new URL('..', import.meta.url));
const { createLogger } = await import(`${root}packages/logging/dist/index.js`);

/** Creates a throwaway database; `drop()` removes it. */
export async function benchEnvironment() {
  const postgresUrl = process.env.TEST_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
  const suffix = randomBytes(4).toString('hex');
  const database = `feedback_bench_${suffix}`;
  const admin = new pg.Client({ connectionString: postgresUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  const databaseUrl = Object.assign(new URL(postgresUrl), { pathname: `/${database}` }).toString();
  return {
    suffix,
    databaseUrl,
    env: {
      DATABASE_URL: databaseUrl,
      AMQP_URL: process.env.TEST_AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672',
      BROKER_NAMESPACE: `bench-${suffix}.`,
      PORT: '0',
      HEALTH_PORT: '0',
      LOG_LEVEL: 'error',
      SESSION_SIGNING_KEY: generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    },
    async drop() {
      await admin.query(`DROP DATABASE ${database} WITH (FORCE)`);
      await admin.end();
    },
  };
}

export const quiet = (service) => createLogger({ service, level: 'error', transports: [new winston.transports.Console({ silent: true })] });

/** Signs up a Pro team with one app through the dashboard; answers the session token and the app. */
export async function proTeamWithApp(apiUrl, suffix) {
  const dashboard = async (method, path, token, body) => {
    const response = await fetch(`${apiUrl}/dashboard/v1${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: body && JSON.stringify(body),
    });
    return { status: response.status, body: await response.json().catch(() => ({})) };
  };
  const { body: session } = await dashboard('POST', '/sign-up', undefined, {
    team_name: 'Bench', name: 'Bench', email: `bench-${suffix}@example.com`, password: 'benchmark password',
  });
  await dashboard('PATCH', '/team', session.token, { plan: 'pro' });
  const { body: created } = await dashboard('POST', '/apps', session.token, { name: 'Bench app' });
  return { token: session.token, created, dashboard };
}
