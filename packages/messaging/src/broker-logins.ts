import { execFile } from 'node:child_process';
import { chown, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createHash, randomBytes } from 'node:crypto';
import { topologyNames } from './topology.js';

/** The services that reach the broker, each with a login of its own. */
export const BROKER_SERVICES = ['api', 'authority', 'webhook-worker'] as const;
export type BrokerService = (typeof BROKER_SERVICES)[number];

/** A routing-key rule on one topic exchange: the keys a login may publish with, and bind with. */
export interface TopicPermission {
  exchange: string;
  write: string;
  read: string;
}

/**
 * What one login may do, as RabbitMQ takes it: three regular expressions over resource names
 * (configure: declare and delete; write: publish to an exchange, bind a queue; read: consume a
 * queue, bind from an exchange), and routing-key rules on the topic exchanges it uses.
 */
export interface BrokerPermissions {
  configure: string;
  write: string;
  read: string;
  topics: TopicPermission[];
}

/** A literal name as a regular expression. */
const literal = (name: string) => name.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&');
/** A regular expression matching exactly these names. */
const exactly = (names: readonly string[]) => (names.length === 0 ? '^$' : `^(${names.join('|')})$`);
/** Server-named exclusive queues (the api's key-change queue, the authority's acknowledgements). */
const SERVER_NAMED = 'amq\\.gen-.*';
/**
 * The default exchange reaches every queue by name. Only the services that answer RPC (over direct
 * reply-to, which RabbitMQ routes through it) and the worker (its retry queues) write to it.
 */
const DEFAULT_EXCHANGE = 'amq\\.default';

/**
 * Each service's permissions under a namespace: its own queues, the exchanges it uses, and the
 * routing keys it may publish and bind with on each topic exchange. The api, the only service
 * facing the internet, cannot read any other service's queue, write to the default exchange, or
 * publish `key.changed`.
 */
export function brokerPermissions(namespace = ''): Record<BrokerService, BrokerPermissions> {
  const names = topologyNames(namespace);
  const n = (name: string) => literal(name);
  const authorityQueues = [names.rpcQueue('authority'), names.rpcQueue('authority', 'hot'), names.keyUsageQueue].map(n);
  const workerQueues = [names.rpcQueue('webhook-worker'), names.workerDomainEventsQueue, names.workerPlanChangesQueue].map(n);
  // Every delivery queue: the retry and throttle queues carry their delay in their names.
  const deliveryQueues = `${n(`${names.namespace}webhooks.`)}.*`;
  const rpcKeys = (...queues: string[]) => exactly(queues.map(n));
  // A `listen` session's queue: declared and read by the api instance holding it.
  const listenQueues = `${n(names.listenQueue(''))}.*`;
  return {
    api: {
      configure: exactly([n(names.domainEvents), n(names.authorityEvents), n(names.rpcExchange), SERVER_NAMED, listenQueues]),
      write: exactly([n(names.domainEvents), n(names.authorityEvents), n(names.rpcExchange), n(names.replies), SERVER_NAMED]),
      read: exactly([n(names.authorityEvents), SERVER_NAMED, listenQueues]),
      topics: [
        { exchange: names.domainEvents, write: '.*', read: '^$' },
        { exchange: names.authorityEvents, write: '^key\\.used$', read: '^key\\.changed$' },
        {
          exchange: names.rpcExchange,
          write: rpcKeys(names.rpcQueue('authority'), names.rpcQueue('authority', 'hot'), names.rpcQueue('webhook-worker')),
          read: '^$',
        },
      ],
    },
    authority: {
      configure: exactly([...authorityQueues, n(names.authorityEvents), n(names.rpcExchange), n(names.replies), SERVER_NAMED]),
      // No write on `rpc`: the authority calls no service.
      write: exactly([...authorityQueues, n(names.authorityEvents), SERVER_NAMED, DEFAULT_EXCHANGE]),
      read: exactly([...authorityQueues, n(names.authorityEvents), n(names.rpcExchange), n(names.replies), SERVER_NAMED]),
      topics: [
        { exchange: names.domainEvents, write: '^$', read: '^$' },
        { exchange: names.authorityEvents, write: '^(key\\.changed|team\\.plan_changed)$', read: '^key\\.used$' },
        { exchange: names.rpcExchange, write: '^$', read: rpcKeys(names.rpcQueue('authority'), names.rpcQueue('authority', 'hot')) },
      ],
    },
    'webhook-worker': {
      configure: exactly([...workerQueues, deliveryQueues, n(names.domainEvents), n(names.authorityEvents), n(names.rpcExchange), n(names.replies), SERVER_NAMED]),
      // The default exchange: RPC answers, and a listen session's requests to its api instance's queue.
      write: exactly([...workerQueues, deliveryQueues, n(names.rpcExchange), SERVER_NAMED, DEFAULT_EXCHANGE]),
      read: exactly([...workerQueues, deliveryQueues, n(names.domainEvents), n(names.authorityEvents), n(names.rpcExchange), n(names.replies), SERVER_NAMED]),
      topics: [
        { exchange: names.domainEvents, write: '^$', read: '.*' },
        { exchange: names.authorityEvents, write: '^$', read: '^team\\.plan_changed$' },
        // The hot lane alone, for the authority's public keys, which verify the grants endpoint commands carry.
        { exchange: names.rpcExchange, write: rpcKeys(names.rpcQueue('authority', 'hot')), read: rpcKeys(names.rpcQueue('webhook-worker')) },
      ],
    },
  };
}

const run = promisify(execFile);

/**
 * Makes (or updates) the services' logins with one `rabbitmqctl import_definitions`, which must
 * reach the broker (run where it runs, as root or its own user). One call, not one per
 * permission: each call starts an Erlang VM, about a second of CPU. Used by the tests,
 * `scripts/run.sh` and `scripts/broker-logins.mjs apply`.
 */
export async function applyBrokerLogins(
  logins: Array<{ service: BrokerService; user: string; password: string }>,
  options: { namespace?: string; vhost?: string; rabbitmqctl?: string } = {},
): Promise<void> {
  // The document holds password hashes, so only its reader may open it. This rabbitmqctl
  // version cannot read standard input.
  const directory = await mkdtemp(join(tmpdir(), 'broker-logins-'));
  const file = join(directory, 'definitions.json');
  try {
    // Without its vhost: importing one would reset an existing vhost's description and tags, and
    // a mistyped name would make a new one instead of failing.
    const { vhosts: _vhosts, ...definitions } = brokerDefinitions(logins, options);
    await writeFile(file, JSON.stringify(definitions), { mode: 0o600 });
    // Debian's rabbitmqctl, run as root, reads the file as the rabbitmq user: it is handed over.
    const reader = process.getuid?.() === 0 ? await userIds('rabbitmq') : undefined;
    if (reader) for (const path of [directory, file]) await chown(path, reader.uid, reader.gid);
    await run(options.rabbitmqctl ?? 'rabbitmqctl', ['-q', 'import_definitions', file]);
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

/** A system user's ids, or undefined where there is no such user. */
async function userIds(user: string): Promise<{ uid: number; gid: number } | undefined> {
  try {
    const [uid, gid] = await Promise.all([run('id', ['-u', user]), run('id', ['-g', user])]);
    return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
  } catch {
    return undefined;
  }
}

/**
 * Deletes logins made by applyBrokerLogins (a test run's). One rabbitmqctl call for them all,
 * through the broker's own user store, where the names are plain. Where that call fails (a broker
 * without that function), one documented `delete_user` call each. A login that cannot be deleted
 * is left, as before: a test run's cleanup does not fail on it.
 */
export async function deleteBrokerLogins(users: readonly string[], options: { rabbitmqctl?: string } = {}): Promise<void> {
  if (users.length === 0) return;
  const rabbitmqctl = options.rabbitmqctl ?? 'rabbitmqctl';
  // Only plain names go into the Erlang expression: nothing in them can end the binary. A user
  // already gone is skipped; a broker without that function fails the call, and the loop below runs.
  if (users.every((user) => /^[\w.-]+$/.test(user))) {
    const names = users.map((user) => `<<"${user}">>`).join(', ');
    const deleted = await run(rabbitmqctl, ['-q', 'eval', `true = erlang:function_exported(rabbit_auth_backend_internal, delete_user, 2), [catch rabbit_auth_backend_internal:delete_user(U, <<"tests">>) || U <- [${names}]], ok.`]).then(
      () => true,
      () => false,
    );
    if (deleted) return;
  }
  await Promise.all(users.map((user) => run(rabbitmqctl, ['-q', 'delete_user', user]).catch(() => undefined)));
}

/**
 * A password as RabbitMQ's definitions file keeps it (`rabbit_password_hashing_sha256`): four
 * random bytes of salt, then SHA-256 of the salt and the password, in base64.
 */
export function rabbitPasswordHash(password: string, salt: Buffer = randomBytes(4)): string {
  return Buffer.concat([salt, createHash('sha256').update(Buffer.concat([salt, Buffer.from(password, 'utf8')])).digest()]).toString('base64');
}

/**
 * A RabbitMQ definitions document with the services' logins and their permissions, for a broker
 * that loads definitions at boot (the Compose file's). No other user is made: `guest` is gone.
 */
export function brokerDefinitions(logins: Array<{ service: BrokerService; user: string; password: string }>, options: { namespace?: string; vhost?: string } = {}) {
  const vhost = options.vhost ?? '/';
  const permissions = brokerPermissions(options.namespace);
  return {
    vhosts: [{ name: vhost }],
    users: logins.map((login) => ({ name: login.user, password_hash: rabbitPasswordHash(login.password), hashing_algorithm: 'rabbit_password_hashing_sha256', tags: [] })),
    permissions: logins.map((login) => {
      const { configure, write, read } = permissions[login.service];
      return { user: login.user, vhost, configure, write, read };
    }),
    topic_permissions: logins.flatMap((login) => permissions[login.service].topics.map((topic) => ({ user: login.user, vhost, ...topic }))),
  };
}
