import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { eventually } from '@feedback/test-support';
import pg from 'pg';
import { call, createApp, signUpTeam } from './dashboard.js';
import type { Owner } from './dashboard.js';
import { startSystem } from './system.js';
import type { RunningSystem } from './system.js';

type Schema = {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  minLength?: number;
  minimum?: number;
  minItems?: number;
  required?: string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  additionalProperties?: Schema | boolean;
};
interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  schema: Schema;
}
interface Operation {
  security?: Array<Record<string, unknown>>;
  responses: Record<string, unknown>;
  parameters?: Parameter[];
  requestBody?: { content: { 'application/json': { schema: Schema } } };
}
/** Where a lone surrogate goes: a body field (JSON Pointer, its last token a key when `key`), or a parameter. */
type Field = { in: 'body'; pointer: string[]; key?: boolean } | { in: 'path' | 'query'; name: string };

/** A lone high and a lone low surrogate: as JSON escapes in a body, as the bytes WTF-8 gives them in a URL. */
const SURROGATES = [
  { name: 'high', text: '\ud800', percentEncoded: '%ED%A0%80' },
  { name: 'low', text: '\udfff', percentEncoded: '%ED%BF%BF' },
];

let system: RunningSystem;
let owner: Owner;
let credentials: Record<string, string>;
/** Path parameters that name real records, so that each request would reach one. */
let realIds: Record<string, string>;

beforeAll(async () => {
  system = await startSystem();
  const url = system.api.url;
  owner = await signUpTeam(url, 'pro');
  const app = await createApp(url, owner.token);
  await call(url, 'PATCH', `/dashboard/v1/apps/${app.appId}/api-key`, { token: owner.token, body: { full_access: true } });
  const author = { external_id: 'someone', name: 'Some One' };
  const suggestion = await call<{ id: number }>(url, 'POST', '/api/v1/suggestions', { key: app.secretKey, body: { title: 'An idea', author } });
  const ticket = await call<{ id: number }>(url, 'POST', '/api/v1/tickets', { key: app.secretKey, body: { subject: 'Help', body: 'Please', author } });
  // Subscribed to pings only, and none is sent: no delivery changes the worker's tables meanwhile.
  const endpoint = await call<{ endpoint: { id: string } }>(url, 'POST', `/dashboard/v1/apps/${app.appId}/webhooks`, {
    token: owner.token,
    body: { name: 'Receiver', url: 'https://localhost:9443/hooks', events: ['webhook.ping'] },
  });
  expect([suggestion.status, ticket.status, endpoint.status]).toEqual([201, 201, 201]);
  credentials = { secretKey: app.secretKey, publicKey: app.publicKey, memberSession: owner.token };
  realIds = {
    appId: String(app.appId),
    suggestionId: String(suggestion.body.id),
    ticketId: String(ticket.body.id),
    endpointId: endpoint.body.endpoint.id,
    memberId: owner.memberId,
    externalId: author.external_id,
  };
}, 60_000);

afterAll(async () => {
  await system?.stop();
});

/** An instance of `schema`, valid where it is simple to be: required properties, first enum values, minimum sizes. */
function example(schema: Schema): unknown {
  if ('const' in schema) return schema.const;
  if (schema.enum) return schema.enum[0];
  const type = [schema.type ?? 'string'].flat().find((each) => each !== 'null');
  switch (type) {
    case 'object':
      return Object.fromEntries((schema.required ?? []).map((name) => [name, example(schema.properties![name]!)]));
    case 'array':
      return Array.from({ length: schema.minItems ?? 0 }, () => example(schema.items ?? {}));
    case 'integer':
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return true;
    default:
      if (schema.format === 'uuid') return randomUUID();
      if (schema.format === 'email') return 'someone@example.com';
      if (schema.format === 'date-time') return new Date().toISOString();
      return 'Example'.padEnd(schema.minLength ?? 0, '!');
  }
}

const holdsText = (schema: Schema) =>
  [schema.type].flat().includes('string') || [schema.enum ?? [], schema.const ?? []].flat().some((value) => typeof value === 'string');

/** Every place in a body of `schema` that text can go: string values, array elements, free keys. */
function textFields(schema: Schema, pointer: string[] = []): Field[] {
  const fields: Field[] = holdsText(schema) ? [{ in: 'body', pointer }] : [];
  for (const [name, property] of Object.entries(schema.properties ?? {})) fields.push(...textFields(property, [...pointer, name]));
  if (schema.items) fields.push(...textFields(schema.items, [...pointer, '0']));
  if (typeof schema.additionalProperties === 'object') {
    fields.push({ in: 'body', pointer: [...pointer, 'question'], key: true }, ...textFields(schema.additionalProperties, [...pointer, 'question']));
  }
  return fields;
}

/** `body` with `text` at `pointer` (as the last key's name when `key`), the objects and arrays on the way made as needed. */
function withText(body: unknown, pointer: string[], text: string, key = false): unknown {
  const root = structuredClone(body ?? {}) as Record<string, unknown>;
  let parent: Record<string, unknown> = root;
  pointer.slice(0, -1).forEach((token, index) => {
    parent[token] ??= pointer[index + 1] === '0' ? [] : {};
    parent = parent[token] as Record<string, unknown>;
  });
  const last = pointer[pointer.length - 1]!;
  if (key) parent[`${last}${text}`] = 'yes';
  else parent[last] = text;
  return root;
}

const toPointer = (tokens: string[]) => tokens.map((token) => `/${token.replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');

/** Every table of the three services, as text, but for what changes by itself (leases, a key's last use). */
async function everythingStored(database: pg.Client): Promise<string> {
  const { rows: tables } = await database.query<{ name: string }>(
    `SELECT format('%I.%I', table_schema, table_name) AS name FROM information_schema.tables
     WHERE table_schema IN ('api', 'authority', 'webhooks') AND table_name NOT IN ('api_instances', 'rate_limits') ORDER BY 1`,
  );
  const contents: string[] = [];
  for (const { name } of tables) {
    const { rows } = await database.query<{ rows: string | null }>(
      `SELECT string_agg(row, E'\\n' ORDER BY row) AS rows FROM (SELECT (to_jsonb(t) - 'last_used_at')::text AS row FROM ${name} t) AS rows`,
    );
    contents.push(`${name}\n${rows[0]!.rows ?? ''}`);
  }
  return contents.join('\n\n');
}

describe('a lone UTF-16 surrogate', () => {
  it('is refused with 400 validation_failed naming the field, and changes nothing, in every string field of every operation of the OpenAPI document', async () => {
    const document = (await (await fetch(`${system.api.url}/api/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, Operation>> };
    const database = new pg.Client({ connectionString: system.env['DATABASE_URL'] });
    await database.connect();
    try {
      // The set-up's events published and heard by the worker: nothing left to change by itself.
      await eventually(async () => {
        const { rows } = await database.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM api.outbox_events o
           WHERE o.published_at IS NULL OR NOT EXISTS (SELECT 1 FROM webhooks.received_events r WHERE r.event_id = o.event_id)`,
        );
        return rows[0]!.n === 0 ? true : undefined;
      }, { what: 'the set-up\'s events to be published and received' });
      const before = await everythingStored(database);

      const answers: Array<{ request: string; status: number; body: unknown; expected: string }> = [];
      let operations = 0;
      const silent: string[] = [];
      /** Operations that answer 400 here without the document saying they may. */
      const undocumented: string[] = [];
      for (const [template, methods] of Object.entries(document.paths)) {
        for (const [method, operation] of Object.entries(methods)) {
          operations += 1;
          const scheme = Object.keys(operation.security?.[0] ?? {})[0];
          const parameters = operation.parameters ?? [];
          const bodySchema = operation.requestBody?.content['application/json'].schema;
          const body = bodySchema ? example(bodySchema) : undefined;
          const pathValue = (name: string) =>
            realIds[name] ?? encodeURIComponent(String(example(parameters.find((parameter) => parameter.name === name)?.schema ?? {})));
          const targets: Field[] = [
            ...parameters.filter((parameter) => parameter.in === 'path' || parameter.in === 'query').map((parameter) => ({ in: parameter.in as 'path' | 'query', name: parameter.name })),
            ...(bodySchema ? textFields(bodySchema) : []),
          ];
          if (targets.length === 0 && (parameters.some((parameter) => parameter.in !== 'header') || bodySchema)) silent.push(`${method} ${template}`);
          if (targets.length > 0 && !operation.responses['400']) undocumented.push(`${method} ${template}`);
          for (const target of targets) {
            for (const surrogate of SURROGATES) {
              const path = template.replace(/\{(\w+)\}/g, (_match, name: string) =>
                target.in === 'path' && target.name === name ? surrogate.percentEncoded : pathValue(name),
              );
              const query = target.in === 'query' ? `?${target.name}=${surrogate.percentEncoded}` : '';
              const sent = target.in === 'body' ? withText(body, target.pointer, surrogate.text, target.key) : body;
              const answer = await call(system.api.url, method.toUpperCase(), `${path}${query}`, {
                ...(scheme ? { token: credentials[scheme] } : {}),
                ...(sent !== undefined ? { body: sent } : {}),
              });
              const expected =
                target.in === 'body' ? toPointer(target.key ? [...target.pointer.slice(0, -1), `${target.pointer.at(-1)}${surrogate.text}`] : target.pointer)
                : target.in === 'query' ? `/${target.name}`
                : target.name;
              answers.push({ request: `${method.toUpperCase()} ${template} ${target.in} ${expected} (${surrogate.name})`, status: answer.status, body: answer.body, expected });
            }
          }
        }
      }
      const wrong = answers.filter(
        (answer) => answer.status !== 400 || (answer.body as { error?: string }).error !== 'validation_failed' || (answer.body as { field?: string }).field !== answer.expected,
      );
      expect(wrong).toEqual([]);
      expect(await everythingStored(database)).toBe(before);
      // The walk found what the document describes: an operation that takes input gave a field.
      expect(operations).toBeGreaterThan(30);
      expect(silent).toEqual([]);
      expect(undocumented).toEqual([]);
    } finally {
      await database.end();
    }
  });
});
