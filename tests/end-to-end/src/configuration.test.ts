import { spawnSync } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { parse as parseYaml, parseAllDocuments } from 'yaml';
import { BROKER_SERVICES, brokerPermissions, rabbitPasswordHash } from '@feedback/messaging';
import { apiEnvironment, readApiConfig } from '../../../services/api/src/config.js';
import { authorityEnvironment, readAuthorityConfig } from '../../../services/authority/src/config.js';
import { readWorkerConfig, workerEnvironment } from '../../../services/webhook-worker/src/config.js';
import { requireCurrentBuild } from './current-build.js';

// Runs the built entry points (the test command builds before jest runs).
const root = fileURLToPath(new URL('../../../', import.meta.url));
const EXIT_CONFIG = 78;

function start(service: string, env: Record<string, string>) {
  const entry = `${root}services/${service}/dist/main.js`;
  requireCurrentBuild();
  return spawnSync(process.execPath, [entry], { env: { PATH: process.env['PATH'] ?? '', ...env }, encoding: 'utf8', timeout: 20_000 });
}

describe('start-up configuration', () => {
  it.each(['api', 'authority', 'webhook-worker'])('%s stops with a message naming every missing variable', (service) => {
    const result = start(service, {});
    expect(result.status).toBe(EXIT_CONFIG);
    expect(result.stderr).toMatch(/DATABASE_URL is required/);
    expect(result.stderr).toMatch(/AMQP_URL is required/);
  });

  it('names a malformed variable and says what it expects', () => {
    const result = start('api', {
      DATABASE_URL: 'mysql://127.0.0.1/feedback',
      AMQP_URL: 'amqp://127.0.0.1',
      PORT: 'eighty',
    });
    expect(result.status).toBe(EXIT_CONFIG);
    expect(result.stderr).toMatch(/DATABASE_URL must use postgresql or postgres/);
    expect(result.stderr).toMatch(/PORT must be a whole number/);
  });

  it('names a session signing key that is not an Ed25519 private key, without showing it', () => {
    const base = { DATABASE_URL: 'postgresql://127.0.0.1/x', AMQP_URL: 'amqp://127.0.0.1' };
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    for (const key of ['-----BEGIN PRIVATE KEY-----\nnot-a-key-hunter4\n-----END PRIVATE KEY-----', rsa]) {
      const result = start('authority', { ...base, SESSION_SIGNING_KEY: key });
      expect(result.status).toBe(EXIT_CONFIG);
      expect(result.stderr).toMatch(/SESSION_SIGNING_KEY must be an Ed25519 private key/);
      expect(result.stderr + result.stdout).not.toMatch(/hunter4|BEGIN PRIVATE KEY/);
      expect(result.stderr + result.stdout).not.toContain(rsa.split('\n')[1]);
    }
    // One on a single line with literal "\n", as environment files carry it, is taken.
    const ed25519 = generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    expect(readAuthorityConfig({ ...base, SESSION_SIGNING_KEY: ed25519.replace(/\n/g, '\\n') }).config.sessionSigningKey).toBe(ed25519);
  });

  it('names every problem in one start: a missing variable beside values that break their rules', () => {
    const authority = start('authority', { AMQP_URL: 'amqp://127.0.0.1', SESSION_SIGNING_KEY: 'not a key' });
    expect(authority.status).toBe(EXIT_CONFIG);
    expect(authority.stderr).toMatch(/DATABASE_URL is required/);
    expect(authority.stderr).toMatch(/SESSION_SIGNING_KEY must be an Ed25519 private key/);
    const worker = start('webhook-worker', { AMQP_URL: 'amqp://127.0.0.1', WEBHOOK_RETRY_DELAYS_MS: '1,2', WEBHOOK_THROTTLE_DELAYS_MS: '0', WEBHOOK_EXTRA_CA_FILE: '/no/such/ca.pem' });
    expect(worker.status).toBe(EXIT_CONFIG);
    for (const problem of [/DATABASE_URL is required/, /SIGNING_SECRET_ENCRYPTION_KEY is required/, /WEBHOOK_RETRY_DELAYS_MS must be five/, /WEBHOOK_THROTTLE_DELAYS_MS must be one to ten/, /WEBHOOK_EXTRA_CA_FILE cannot be read/]) {
      expect(worker.stderr).toMatch(problem);
    }
  });

  it('never prints a password from a URL it could not use', () => {
    const result = start('authority', { DATABASE_URL: 'postgresql://u:hunter2@127.0.0.1/x', AMQP_URL: 'http://guest:hunter3@h' });
    expect(result.status).toBe(EXIT_CONFIG);
    expect(result.stderr + result.stdout).not.toMatch(/hunter/);
  });
});

describe('the Kubernetes manifests', () => {
  interface Container {
    envFrom?: unknown;
    env: Array<{ name: string; value?: string; valueFrom?: { secretKeyRef: { name: string; key: string } } }>;
  }
  const deployments = parseAllDocuments(readFileSync(`${root}infra/k8s/services.yaml`, 'utf8'))
    .map((document) => document.toJS() as { kind: string; metadata: { name: string }; spec: { template: { spec: { containers: Container[] } } } })
    .filter((resource) => resource?.kind === 'Deployment');
  // What an operator puts in the Secret, in the form each service expects.
  const secretValues: Record<string, string> = {
    API_DATABASE_URL: 'postgresql://feedback_api@postgres:5432/feedback',
    AUTHORITY_DATABASE_URL: 'postgresql://feedback_authority@postgres:5432/feedback',
    WEBHOOK_WORKER_DATABASE_URL: 'postgresql://feedback_webhook_worker@postgres:5432/feedback',
    API_AMQP_URL: 'amqp://feedback-api@rabbitmq:5672',
    AUTHORITY_AMQP_URL: 'amqp://feedback-authority@rabbitmq:5672',
    WEBHOOK_WORKER_AMQP_URL: 'amqp://feedback-webhook-worker@rabbitmq:5672',
    SESSION_SIGNING_KEY: generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    SIGNING_SECRET_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    SIGNING_SECRET_PREVIOUS_KEYS: randomBytes(32).toString('base64'),
    ERASURE_HASH_KEY: randomBytes(32).toString('base64'),
  };
  const services = {
    api: { variables: apiEnvironment, read: readApiConfig },
    authority: { variables: authorityEnvironment, read: readAuthorityConfig },
    'webhook-worker': { variables: workerEnvironment, read: readWorkerConfig },
  };

  it.each(Object.keys(services))('give %s every variable it needs, each one a variable it reads, and no Secret key it does not read', (name) => {
    const deployment = deployments.find((candidate) => candidate.metadata.name === name);
    const [container] = deployment!.spec.template.spec.containers;
    // The whole Secret (envFrom) would hand the api, exposed to the internet, the keys that sign
    // sessions and open webhook signing secrets.
    expect(container!.envFrom).toBeUndefined();
    const fromSecret = container!.env.flatMap((variable) => (variable.valueFrom ? [variable.valueFrom.secretKeyRef] : []));
    // A misspelt key would leave the pod unable to start (CreateContainerConfigError).
    expect(fromSecret.filter((ref) => ref.name !== 'feedback-platform' || !(ref.key in secretValues))).toEqual([]);
    const env = Object.fromEntries(container!.env.map((variable) => [variable.name, variable.valueFrom ? secretValues[variable.valueFrom.secretKeyRef.key] : variable.value]));
    const { variables, read } = services[name as keyof typeof services];
    expect(Object.keys(env).filter((variable) => !(variable in variables))).toEqual([]);
    expect(() => read(env)).not.toThrow();
  });

  it('give each service a database login of its own, so the api cannot write the others\' schemas', () => {
    const logins = deployments.map((deployment) => deployment.spec.template.spec.containers[0]!.env.find((variable) => variable.name === 'DATABASE_URL')?.valueFrom?.secretKeyRef.key);
    expect(logins).toHaveLength(3);
    expect(new Set(logins).size).toBe(3);
  });

  it("give each service a broker login of its own, so the api cannot read the authority's requests nor write to the worker's queues", () => {
    const logins = deployments.map((deployment) => deployment.spec.template.spec.containers[0]!.env.find((variable) => variable.name === 'AMQP_URL')?.valueFrom?.secretKeyRef.key);
    expect(logins).toEqual(['API_AMQP_URL', 'AUTHORITY_AMQP_URL', 'WEBHOOK_WORKER_AMQP_URL']);
  });

  it('give the api its public addresses, not the localhost defaults that would go into the OpenAPI document and error bodies', () => {
    const [container] = deployments.find((candidate) => candidate.metadata.name === 'api')!.spec.template.spec.containers;
    const env = Object.fromEntries(container!.env.filter((variable) => variable.value !== undefined).map((variable) => [variable.name, variable.value!]));
    const { config } = readApiConfig({ ...env, ...secretValues, DATABASE_URL: secretValues['API_DATABASE_URL'], AMQP_URL: secretValues['API_AMQP_URL'] });
    for (const address of [config.publicBaseUrl, config.dashboardUrl, config.docsUrl]) expect(address).toMatch(/^https:\/\/(?!localhost)/);
  });
});

describe('the image', () => {
  it('runs on Node 24, a supported LTS, in both its stages', () => {
    const bases = [...readFileSync(`${root}infra/Dockerfile`, 'utf8').matchAll(/^FROM (\S+)/gm)].map((match) => match[1]);
    expect(bases).toHaveLength(2);
    for (const base of bases) expect(base).toMatch(/^node:24[.-]/);
  });
});

describe('the Compose file', () => {
  it("gives each service its own broker login, which the broker's definitions allow exactly what brokerPermissions allows it", () => {
    const compose = parseYaml(readFileSync(`${root}docker-compose.yml`, 'utf8')) as { services: Record<string, { environment: Record<string, string> }> };
    const definitions = JSON.parse(readFileSync(`${root}infra/rabbitmq/definitions.json`, 'utf8')) as {
      users: Array<{ name: string; password_hash: string }>;
      permissions: Array<{ user: string; configure: string; write: string; read: string }>;
      topic_permissions: Array<{ user: string; exchange: string; write: string; read: string }>;
    };
    const permissions = brokerPermissions('');
    for (const service of BROKER_SERVICES) {
      const url = new URL(compose.services[service]!.environment['AMQP_URL']!);
      const user = definitions.users.find((candidate) => candidate.name === url.username)!;
      // Made again from its salt, the stored hash is the password's in the service's URL.
      expect(rabbitPasswordHash(url.password, Buffer.from(user.password_hash, 'base64').subarray(0, 4))).toBe(user.password_hash);
      const { configure, write, read, topics } = permissions[service];
      expect(definitions.permissions.find((entry) => entry.user === user.name)).toMatchObject({ configure, write, read });
      expect(definitions.topic_permissions.filter((entry) => entry.user === user.name).map(({ exchange, write, read }) => ({ exchange, write, read }))).toEqual(topics);
    }
    expect(definitions.users).toHaveLength(BROKER_SERVICES.length);
  });
});

describe('docs/configuration.md', () => {
  it('describes every variable each service reads, in its configuration tables', () => {
    const readme = readFileSync(`${root}docs/configuration.md`, 'utf8');
    const variables = [...Object.keys(apiEnvironment), ...Object.keys(authorityEnvironment), ...Object.keys(workerEnvironment)];
    // A row names its variables first: "| `NAME` |" or "| `NAME`, `OTHER` |".
    const described = new Set([...readme.matchAll(/^\| ((?:`[A-Z0-9_]+`(?:, )?)+) \|/gm)].flatMap((row) => row[1]!.match(/[A-Z0-9_]+/g)!));
    expect(variables.filter((variable) => !described.has(variable))).toEqual([]);
  });
});
