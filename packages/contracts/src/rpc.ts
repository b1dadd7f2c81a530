import { defineContract, requiredText } from './contract.js';
import { EVENT_NAMES } from './event-names.js';
import {
  apiKeySchema,
  appSchema,
  keyAuditEntrySchema,
  memberSchema,
  PLANS,
  ROLES,
  scopeSchema,
  sessionTokenSchema,
  teamSchema,
} from './authority-views.js';
import { recordIdSchema } from './record-id.js';

/**
 * Commands and queries between services travel as RPC over RabbitMQ. The method name says which
 * service answers it ("authority.verifySecretKey" goes to the authority's queue); each method has
 * a request and a result contract, validated on receipt at both ends.
 */
export const rpcErrorSchema = {
  type: 'object',
  required: ['code', 'message'],
  additionalProperties: false,
  properties: { code: { type: 'string' }, message: { type: 'string' } },
} as const;

export const rpcReplyContract = defineContract('rpc-reply', {
  oneOf: [
    {
      type: 'object',
      required: ['ok', 'result'],
      additionalProperties: false,
      properties: { ok: { const: true }, result: {} },
    },
    {
      type: 'object',
      required: ['ok', 'error'],
      additionalProperties: false,
      properties: { ok: { const: false }, error: rpcErrorSchema },
    },
  ],
} as const);
export type RpcReply = ReturnType<typeof rpcReplyContract.parse>;


const nullableTime = { type: ['string', 'null'], format: 'date-time' } as const;

const endpointHealthSchema = {
  type: 'object',
  required: ['last_success_at', 'failing_since', 'attempts_last_day', 'success_rate_last_day'],
  additionalProperties: false,
  description: 'How the endpoint has answered. Written by the workers a few times a minute, so it may lag the history by seconds.',
  properties: {
    last_success_at: { ...nullableTime, description: 'When an attempt last got a 2xx; null if none ever did.' },
    failing_since: { ...nullableTime, description: 'The first failed attempt after the last success; null while the endpoint succeeds.' },
    attempts_last_day: { type: 'integer', minimum: 0, description: 'Attempts in the last 24 hours, counted by the hour.' },
    success_rate_last_day: { type: ['number', 'null'], minimum: 0, maximum: 1, description: 'Share of those attempts that got a 2xx; null without attempts.' },
  },
} as const;

const endpointPauseSchema = {
  type: ['object', 'null'],
  required: ['paused_at', 'reason', 'paused_by'],
  additionalProperties: false,
  description: 'Null while deliveries go out. Paused, they are recorded as held, and a Recover sends them once resumed.',
  properties: {
    paused_at: { type: 'string', format: 'date-time' },
    reason: { enum: ['failing', 'member'], description: 'failing: every attempt failed for the pause period (5 days by default); member: paused by hand.' },
    paused_by: { type: ['string', 'null'], description: 'The member who paused it; null when the service did.' },
  },
} as const;

const endpointSchema = {
  type: 'object',
  required: ['id', 'app_id', 'name', 'url', 'events', 'created_at', 'updated_at', 'health', 'pause'],
  additionalProperties: false,
  properties: {
    id: { type: 'string', format: 'uuid' },
    app_id: { type: 'integer' },
    name: { type: 'string' },
    url: { type: 'string', format: 'uri' },
    events: { type: 'array', items: { enum: EVENT_NAMES } },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
    health: endpointHealthSchema,
    pause: endpointPauseSchema,
  },
} as const;

/** Statuses a Recover may redeliver. */
export const RECOVERABLE_STATUSES = ['abandoned', 'held', 'cancelled', 'delivered'] as const;

const recoverySchema = {
  type: 'object',
  required: ['id', 'endpoint_id', 'since', 'until', 'statuses', 'events', 'state', 'total', 'delivered', 'failed', 'skipped', 'remaining', 'started_by', 'created_at', 'ended_at'],
  additionalProperties: false,
  properties: {
    id: { type: 'string', format: 'uuid' },
    endpoint_id: { type: 'string', format: 'uuid' },
    since: { type: 'string', format: 'date-time' },
    until: nullableTime,
    statuses: { type: 'array', items: { enum: RECOVERABLE_STATUSES } },
    events: { type: ['array', 'null'], items: { enum: EVENT_NAMES }, description: 'Null: every event.' },
    state: { enum: ['running', 'finished', 'cancelled'], description: 'running until every chosen delivery has been attempted once, or it is cancelled.' },
    total: { type: 'integer', minimum: 0, description: 'Deliveries chosen when it started.' },
    delivered: { type: 'integer', minimum: 0, description: 'Redelivered, and answered with a 2xx.' },
    failed: { type: 'integer', minimum: 0, description: 'Redelivered, and failed; each is abandoned again, and may be recovered again.' },
    skipped: { type: 'integer', minimum: 0, description: 'Not sent: by its turn the delivery was under way, withheld, deleted, or no longer in a chosen status.' },
    remaining: { type: 'integer', minimum: 0, description: 'Not attempted yet, or under way.' },
    started_by: { type: 'string' },
    created_at: { type: 'string', format: 'date-time' },
    ended_at: nullableTime,
  },
} as const;

const auditEntrySchema = {
  type: 'object',
  required: ['id', 'endpoint_id', 'endpoint_name', 'action', 'actor', 'detail', 'created_at'],
  additionalProperties: false,
  properties: {
    id: { type: 'string', format: 'uuid' },
    endpoint_id: { type: 'string', format: 'uuid' },
    endpoint_name: { type: 'string' },
    action: { enum: ['paused', 'resumed', 'recovery_started', 'recovery_cancelled', 'recovery_finished'] },
    actor: { type: ['string', 'null'], description: 'The member; null when the service acted.' },
    detail: { type: ['string', 'null'] },
    created_at: { type: 'string', format: 'date-time' },
  },
} as const;

export const DELIVERY_STATUSES = ['pending', 'retrying', 'delivered', 'abandoned', 'withheld', 'cancelled', 'held'] as const;

const deliverySchema = {
  type: 'object',
  required: ['id', 'event', 'event_id', 'status', 'attempts', 'last_response_code', 'created_at', 'updated_at'],
  additionalProperties: false,
  properties: {
    id: { type: 'string', format: 'uuid', description: 'The envelope id: the same on every attempt and redelivery.' },
    event: { type: 'string' },
    event_id: { type: 'string', format: 'uuid' },
    status: {
      enum: DELIVERY_STATUSES,
      description: 'pending: not attempted yet; retrying: failed, a retry is scheduled; delivered: a 2xx came back; abandoned: the fifth retry failed, or a redelivery by hand failed; withheld: not sent, it names an erased user; cancelled: not attempted again, its endpoint no longer selects this event; held: not sent, its endpoint is paused (a Recover sends it once resumed).',
    },
    attempts: { type: 'integer' },
    last_response_code: { type: ['integer', 'null'] },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
  },
} as const;

const attemptSchema = {
  type: 'object',
  required: ['number', 'started_at', 'duration_ms', 'response_code', 'error', 'response_body_start', 'request'],
  additionalProperties: false,
  properties: {
    number: { type: 'integer' },
    started_at: { type: 'string', format: 'date-time' },
    duration_ms: { type: 'integer' },
    response_code: { type: ['integer', 'null'] },
    error: { type: ['string', 'null'] },
    response_body_start: { type: ['string', 'null'], description: 'The first 1 KiB of the answer.' },
    request: {
      type: ['object', 'null'],
      description: 'The request as sent: its URL and every header, the signature included. The body is the delivery\'s `request_body`, the same on every attempt. Null for attempts made before requests were kept.',
      required: ['url', 'headers'],
      additionalProperties: false,
      properties: {
        url: { type: 'string' },
        headers: { type: 'object', additionalProperties: { type: 'string' } },
      },
    },
  },
} as const;

/** An app as events and key checks name it. */
const appRefSchema = {
  type: 'object',
  required: ['id', 'public_key'],
  additionalProperties: false,
  properties: { id: { type: 'integer' }, public_key: { type: 'string' } },
} as const;

/** An app with its team and the team's plan. */
const appWithPlanSchema = {
  type: 'object',
  required: ['app', 'team_id', 'plan'],
  additionalProperties: false,
  properties: { app: appRefSchema, team_id: { type: 'string' }, plan: { enum: PLANS } },
} as const;

/**
 * What the api passes to the worker about the acting member: what the authority answered, with
 * `grant`, the authority's signature over it. The worker acts only on a grant it verifies.
 */
const endpointOwner = {
  type: 'object',
  required: ['team_id', 'app_id', 'plan', 'grant'],
  additionalProperties: false,
  properties: {
    team_id: { type: 'string', format: 'uuid' },
    app_id: { type: 'integer' },
    plan: { enum: PLANS },
    grant: { type: 'string', minLength: 1, maxLength: 2000 },
  },
} as const;

/** A worker request on behalf of an endpoint owner, with these fields. */
function withOwner<const P extends Record<string, unknown>, const R extends readonly string[]>(properties: P, required: R) {
  return {
    type: 'object',
    required: ['owner', ...required],
    additionalProperties: false,
    properties: { owner: endpointOwner, ...properties },
  } as const;
}

const endpointId = { type: 'string', format: 'uuid' } as const;
const deliveryId = { type: 'string', format: 'uuid' } as const;

const endpointFields = {
  name: requiredText(100),
  url: { type: 'string', minLength: 1, maxLength: 2048 },
  events: { type: 'array', items: { enum: EVENT_NAMES }, minItems: 1, uniqueItems: true },
} as const;

const sessionResult = {
  type: 'object',
  required: ['token', 'expires_at', 'member', 'team'],
  additionalProperties: false,
  properties: {
    token: { type: 'string', description: 'Member session token (JWT), short-lived: renew it before `expires_at`.' },
    expires_at: { type: 'string', format: 'date-time', description: 'When this token expires: renew it before then.' },
    member: memberSchema,
    team: teamSchema,
  },
} as const;

/** A command whose only field is the acting member's session. */
function sessionOnly(name: string) {
  return defineContract(name, {
    type: 'object',
    required: ['session'],
    additionalProperties: false,
    properties: { session: sessionTokenSchema },
  } as const);
}

/** A command on behalf of a signed-in member, with these fields. */
function withSession<const P extends Record<string, unknown>, const R extends readonly string[]>(properties: P, required: R) {
  return {
    type: 'object',
    required: ['session', ...required],
    additionalProperties: false,
    properties: { session: sessionTokenSchema, ...properties },
  } as const;
}

function listOf<const S>(item: S) {
  return {
    type: 'object',
    required: ['items'],
    additionalProperties: false,
    properties: { items: { type: 'array', items: item } },
  } as const;
}

/** One page of a list that pages: `next_cursor` asks for the next one, null on the last. */
function pageOf<const S>(item: S) {
  return {
    type: 'object',
    required: ['items', 'next_cursor'],
    additionalProperties: false,
    properties: { items: { type: 'array', items: item }, next_cursor: { type: ['string', 'null'] } },
  } as const;
}

/** Items on a page of the dashboard's lists that page (endpoints, delivery history): unless asked otherwise, and at most. */
export const PAGE_LIMIT = { default: 50, max: 100 } as const;

/** A page's request: where the previous one ended, and how many items at most. */
const pageRequestFields = {
  cursor: { type: 'string', minLength: 1, maxLength: 200 },
  limit: { type: 'integer', minimum: 1, maximum: PAGE_LIMIT.max },
} as const;

/**
 * Every method's request and result contracts. `lane: 'hot'` marks a call on the request path
 * (key checks, lease renewals): it waits in a queue of its own, so slow commands such as password
 * hashing never hold it up. `atMostOnce` marks a method that would do its work
 * again if run twice (a second app, endpoint, member, test event or attempt): a request the broker
 * gives a second time, because the connection of the server handling it was lost, is refused
 * rather than run again (see serveRpc). The rest are read-only, or repeat to the same end.
 */
export const rpcMethods = {
  /**
   * Resolves a secret key, presented as its SHA-256 hash so the key itself never crosses the
   * broker. Errors: unknown_key, revoked_key.
   */
  'authority.verifySecretKey': {
    lane: 'hot',
    request: defineContract('authority.verifySecretKey.request', {
      type: 'object',
      required: ['key_hash'],
      additionalProperties: false,
      properties: { key_hash: { type: 'string', pattern: '^[a-f0-9]{64}$' } },
    } as const),
    result: defineContract('authority.verifySecretKey.result', {
      type: 'object',
      required: ['key_id', 'app', 'team_id', 'plan', 'scopes', 'full_access'],
      additionalProperties: false,
      properties: {
        key_id: { type: 'string' },
        app: appRefSchema,
        team_id: { type: 'string' },
        plan: { enum: ['free', 'starter', 'pro'] },
        scopes: { type: 'array', items: scopeSchema, uniqueItems: true },
        full_access: { type: 'boolean' },
      },
    } as const),
  },

  /** Creates a team on the Free plan and its first member, an Owner. Errors: email_taken. */
  'authority.signUp': {
    atMostOnce: true,
    request: defineContract('authority.signUp.request', {
      type: 'object',
      required: ['team_name', 'name', 'email', 'password'],
      additionalProperties: false,
      properties: {
        team_name: requiredText(200),
        name: requiredText(200),
        email: { type: 'string', format: 'email', maxLength: 320 },
        password: { type: 'string', minLength: 12, maxLength: 200 },
      },
    } as const),
    result: defineContract('authority.signUp.result', sessionResult),
  },
  /** Errors: invalid_credentials (the same for an unknown email and a wrong password). */
  'authority.signIn': {
    request: defineContract('authority.signIn.request', {
      type: 'object',
      required: ['email', 'password'],
      additionalProperties: false,
      properties: { email: { type: 'string', maxLength: 320 }, password: { type: 'string', maxLength: 200 } },
    } as const),
    result: defineContract('authority.signIn.result', sessionResult),
  },
  /**
   * The session the token belongs to, as it is now: when this token expires, and the member and
   * team read afresh. Errors: session_invalid (expired, ended, or not ours).
   */
  'authority.getSession': {
    request: sessionOnly('authority.getSession.request'),
    result: defineContract('authority.getSession.result', {
      type: 'object',
      required: ['expires_at', 'member', 'team'],
      additionalProperties: false,
      properties: {
        expires_at: { type: 'string', format: 'date-time', description: 'When the token sent expires.' },
        member: memberSchema,
        team: teamSchema,
      },
    } as const),
  },
  /**
   * A new token for the same session, from a token still valid: it expires after the token
   * lifetime, or at the session's absolute end if that comes first. Errors: session_invalid.
   */
  'authority.renewSession': {
    request: sessionOnly('authority.renewSession.request'),
    result: defineContract('authority.renewSession.result', sessionResult),
  },
  /** Sign-out: the session ends, and every token of it is refused from now on. Errors: session_invalid. */
  'authority.endSession': {
    request: sessionOnly('authority.endSession.request'),
    result: defineContract('authority.endSession.result', { type: 'object', additionalProperties: false } as const),
  },
  /** The public keys that verify member session tokens (a JSON Web Key Set). */
  'authority.getSessionKeys': {
    lane: 'hot',
    request: defineContract('authority.getSessionKeys.request', { type: 'object', additionalProperties: false } as const),
    result: defineContract('authority.getSessionKeys.result', {
      type: 'object',
      required: ['keys'],
      additionalProperties: false,
      properties: { keys: { type: 'array', items: { type: 'object' } } },
    } as const),
  },
  'authority.getTeam': {
    request: sessionOnly('authority.getTeam.request'),
    result: defineContract('authority.getTeam.result', teamSchema),
  },
  /** Owner only. Errors: too_many_webhook_endpoints (the team has more than the plan includes), service_unavailable. */
  'authority.changePlan': {
    request: defineContract('authority.changePlan.request', withSession({ plan: { enum: PLANS } }, ['plan'])),
    result: defineContract('authority.changePlan.result', teamSchema),
  },
  'authority.listMembers': {
    request: sessionOnly('authority.listMembers.request'),
    result: defineContract('authority.listMembers.result', listOf(memberSchema)),
  },
  /** Owner or Admin; only an Owner adds an Admin or an Owner. Errors: email_taken. */
  'authority.addMember': {
    atMostOnce: true,
    request: defineContract('authority.addMember.request', withSession({
      name: requiredText(200),
      email: { type: 'string', format: 'email', maxLength: 320 },
      password: { type: 'string', minLength: 12, maxLength: 200 },
      role: { enum: ROLES },
    }, ['name', 'email', 'password', 'role'])),
    result: defineContract('authority.addMember.result', memberSchema),
  },
  /** Owner only. Errors: last_owner. */
  'authority.changeRole': {
    request: defineContract('authority.changeRole.request', withSession({ member_id: { type: 'string', format: 'uuid' }, role: { enum: ROLES } }, ['member_id', 'role'])),
    result: defineContract('authority.changeRole.result', memberSchema),
  },
  /** Owner, or Admin removing a Member. Errors: last_owner. */
  'authority.removeMember': {
    request: defineContract('authority.removeMember.request', withSession({ member_id: { type: 'string', format: 'uuid' } }, ['member_id'])),
    result: defineContract('authority.removeMember.result', { type: 'object', additionalProperties: false } as const),
  },
  'authority.listApps': {
    request: sessionOnly('authority.listApps.request'),
    result: defineContract('authority.listApps.result', listOf(appSchema)),
  },
  /** Owner or Admin. The key's value is not in the result: it is shown only by a rotation. */
  'authority.createApp': {
    atMostOnce: true,
    request: defineContract('authority.createApp.request', withSession({ name: requiredText(200) }, ['name'])),
    result: defineContract('authority.createApp.result', {
      type: 'object',
      required: ['app', 'api_key'],
      additionalProperties: false,
      properties: { app: appSchema, api_key: apiKeySchema },
    } as const),
  },
  /** Owner or Admin. */
  'authority.getApiKey': {
    request: defineContract('authority.getApiKey.request', withSession({ app_id: recordIdSchema }, ['app_id'])),
    result: defineContract('authority.getApiKey.result', apiKeySchema),
  },
  /** Owner or Admin: grant or remove scopes, or set Full access. */
  'authority.changeKeyScopes': {
    request: defineContract('authority.changeKeyScopes.request', withSession({
      app_id: recordIdSchema,
      grant: { type: 'array', items: scopeSchema, uniqueItems: true, maxItems: 20 },
      remove: { type: 'array', items: scopeSchema, uniqueItems: true, maxItems: 20 },
      full_access: { type: 'boolean' },
    }, ['app_id'])),
    result: defineContract('authority.changeKeyScopes.result', apiKeySchema),
  },
  /** Owner or Admin. Returns once every api instance has dropped the key. */
  'authority.revokeKey': {
    request: defineContract('authority.revokeKey.request', withSession({ app_id: recordIdSchema }, ['app_id'])),
    result: defineContract('authority.revokeKey.result', apiKeySchema),
  },
  'authority.restoreKey': {
    request: defineContract('authority.restoreKey.request', withSession({ app_id: recordIdSchema }, ['app_id'])),
    result: defineContract('authority.restoreKey.result', apiKeySchema),
  },
  /**
   * Owner or Admin. The result holds the new secret key, shown once, active even if the key was
   * revoked; the old one is refused at once.
   */
  'authority.rotateKey': {
    request: defineContract('authority.rotateKey.request', withSession({ app_id: recordIdSchema }, ['app_id'])),
    result: defineContract('authority.rotateKey.result', {
      type: 'object',
      required: ['api_key', 'secret_key'],
      additionalProperties: false,
      properties: {
        api_key: apiKeySchema,
        secret_key: { type: 'string' },
        // Present when not every api instance confirmed the rotation: the new key is shown all
        // the same (it would be lost otherwise), with what that means for the old one.
        warning: {
          type: 'object',
          required: ['code', 'message'],
          additionalProperties: false,
          properties: { code: { const: 'propagation_unconfirmed' }, message: { type: 'string' } },
        },
      },
    } as const),
  },
  /** Owner or Admin. Newest first. */
  'authority.listKeyAudit': {
    request: defineContract('authority.listKeyAudit.request', withSession({ app_id: recordIdSchema }, ['app_id'])),
    result: defineContract('authority.listKeyAudit.result', listOf(keyAuditEntrySchema)),
  },
  /**
   * An api instance says it is alive and may serve keys from its cache for `cache_ttl_ms` from
   * now. Key changes wait for every instance whose lease has not ended.
   */
  'authority.registerApiInstance': {
    lane: 'hot',
    request: defineContract('authority.registerApiInstance.request', {
      type: 'object',
      required: ['instance_id', 'cache_ttl_ms'],
      additionalProperties: false,
      properties: { instance_id: { type: 'string', format: 'uuid' }, cache_ttl_ms: { type: 'integer', minimum: 0, maximum: 3_600_000 } },
    } as const),
    result: defineContract('authority.registerApiInstance.result', {
      type: 'object',
      required: ['lease_until'],
      additionalProperties: false,
      properties: { lease_until: { type: 'string', format: 'date-time' } },
    } as const),
  },
  /** An api instance stopping: key changes stop waiting for it. */
  'authority.unregisterApiInstance': {
    lane: 'hot',
    request: defineContract('authority.unregisterApiInstance.request', {
      type: 'object',
      required: ['instance_id'],
      additionalProperties: false,
      properties: { instance_id: { type: 'string', format: 'uuid' } },
    } as const),
    result: defineContract('authority.unregisterApiInstance.result', { type: 'object', additionalProperties: false } as const),
  },
  /** Resolves an app's public key, for the widget. Errors: unknown_key. */
  'authority.verifyPublicKey': {
    lane: 'hot',
    request: defineContract('authority.verifyPublicKey.request', {
      type: 'object',
      required: ['public_key'],
      additionalProperties: false,
      properties: { public_key: { type: 'string', pattern: '^pk_live_[0-9A-Za-z]{22}$' } },
    } as const),
    result: defineContract('authority.verifyPublicKey.result', appWithPlanSchema),
  },
  /** Any member of the app's team. Errors: not_found (not an app of this team). */
  'authority.getApp': {
    request: defineContract('authority.getApp.request', withSession({ app_id: recordIdSchema }, ['app_id'])),
    result: defineContract('authority.getApp.result', appSchema),
  },
  /** Creates an endpoint; the result shows its signing secret, once. Errors: plan_limit_reached, unsafe_url. */
  'webhook-worker.createEndpoint': {
    atMostOnce: true,
    request: defineContract('webhook-worker.createEndpoint.request', withOwner({ ...endpointFields }, ['name', 'url', 'events'])),
    result: defineContract('webhook-worker.createEndpoint.result', {
      type: 'object',
      required: ['endpoint', 'signing_secret'],
      additionalProperties: false,
      properties: { endpoint: endpointSchema, signing_secret: { type: 'string', pattern: '^whsec_' } },
    } as const),
  },
  /**
   * The app's endpoints, oldest first, a page at a time. Without `cursor` or `limit` (an api from
   * before the list paged), every endpoint, and no `next_cursor`. Errors: invalid_cursor.
   */
  'webhook-worker.listEndpoints': {
    request: defineContract(
      'webhook-worker.listEndpoints.request',
      withOwner(pageRequestFields, []),
    ),
    // A page, whose `next_cursor` an answer to an api from before paging leaves out.
    result: defineContract('webhook-worker.listEndpoints.result', { ...pageOf(endpointSchema), required: ['items'] } as const),
  },
  /**
   * The team's plan as it is now: asked by the webhook worker when it creates an endpoint, under
   * its per-team lock, so that a plan lowered since the dashboard authorised the creation holds.
   * Errors: not_found.
   */
  'authority.teamPlan': {
    request: defineContract('authority.teamPlan.request', {
      type: 'object',
      required: ['team_id'],
      additionalProperties: false,
      properties: { team_id: { type: 'string', format: 'uuid' } },
    } as const),
    result: defineContract('authority.teamPlan.result', {
      type: 'object',
      required: ['plan'],
      additionalProperties: false,
      properties: { plan: { enum: PLANS } },
    } as const),
  },
  /**
   * How many webhook endpoints a team has, across its apps (asked by the authority before and after
   * lowering a plan), counted under the same per-team lock as creations.
   */
  'webhook-worker.countTeamEndpoints': {
    request: defineContract('webhook-worker.countTeamEndpoints.request', {
      type: 'object',
      required: ['team_id'],
      additionalProperties: false,
      properties: { team_id: { type: 'string', format: 'uuid' } },
    } as const),
    result: defineContract('webhook-worker.countTeamEndpoints.result', {
      type: 'object',
      required: ['count'],
      additionalProperties: false,
      properties: { count: { type: 'integer', minimum: 0 } },
    } as const),
  },
  /** One endpoint (never its secret). Errors: not_found. */
  'webhook-worker.getEndpoint': {
    request: defineContract('webhook-worker.getEndpoint.request', withOwner({ endpoint_id: endpointId }, ['endpoint_id'])),
    result: defineContract('webhook-worker.getEndpoint.result', endpointSchema),
  },
  /** Errors: not_found, unsafe_url. */
  'webhook-worker.updateEndpoint': {
    request: defineContract('webhook-worker.updateEndpoint.request', withOwner({ endpoint_id: endpointId, ...endpointFields }, ['endpoint_id'])),
    result: defineContract('webhook-worker.updateEndpoint.result', endpointSchema),
  },
  'webhook-worker.deleteEndpoint': {
    request: defineContract('webhook-worker.deleteEndpoint.request', withOwner({ endpoint_id: endpointId }, ['endpoint_id'])),
    result: defineContract('webhook-worker.deleteEndpoint.result', { type: 'object', additionalProperties: false } as const),
  },
  /** A new secret, shown once; the previous one stops signing at once. Errors: not_found, secret_rotated_meanwhile (another rotation at the same moment won). */
  'webhook-worker.rotateEndpointSecret': {
    request: defineContract('webhook-worker.rotateEndpointSecret.request', withOwner({ endpoint_id: endpointId }, ['endpoint_id'])),
    result: defineContract('webhook-worker.rotateEndpointSecret.result', {
      type: 'object',
      required: ['endpoint', 'signing_secret'],
      additionalProperties: false,
      properties: { endpoint: endpointSchema, signing_secret: { type: 'string', pattern: '^whsec_' } },
    } as const),
  },
  /**
   * Owner or Admin of the app's team: may manage its webhook endpoints (specification 1.4).
   * Answers the app and the team's plan. Errors: insufficient_role, not_found.
   */
  'authority.authorizeWebhookManagement': {
    request: defineContract('authority.authorizeWebhookManagement.request', withSession({ app_id: recordIdSchema }, ['app_id'])),
    result: defineContract('authority.authorizeWebhookManagement.result', {
      ...appWithPlanSchema,
      required: [...appWithPlanSchema.required, 'grant'],
      properties: {
        ...appWithPlanSchema.properties,
        /** The authority's signature over the app, team and plan: the worker acts only on it (a JWT, a minute long). */
        grant: { type: 'string' },
      },
    } as const),
  },
  /** Send test: a webhook.ping to this endpoint only, through the delivery pipeline. */
  'webhook-worker.sendTest': {
    atMostOnce: true,
    request: defineContract(
      'webhook-worker.sendTest.request',
      withOwner({ endpoint_id: endpointId, public_key: { type: 'string' }, member_name: { type: 'string' } }, ['endpoint_id', 'public_key', 'member_name']),
    ),
    result: defineContract('webhook-worker.sendTest.result', deliverySchema),
  },
  /**
   * An endpoint's deliveries, newest first (ties by id), a page at a time: `next_cursor` (null on
   * the last page) is passed back as `cursor` for the next. Errors: not_found, invalid_cursor.
   */
  'webhook-worker.listDeliveries': {
    request: defineContract(
      'webhook-worker.listDeliveries.request',
      withOwner(
        {
          endpoint_id: endpointId,
          ...pageRequestFields,
          /** Only deliveries in one of these statuses. */
          status: { type: 'array', items: { enum: DELIVERY_STATUSES }, minItems: 1, uniqueItems: true },
          /** Only deliveries of one of these events. */
          event: { type: 'array', items: { enum: EVENT_NAMES }, minItems: 1, uniqueItems: true },
        },
        ['endpoint_id'],
      ),
    ),
    result: defineContract('webhook-worker.listDeliveries.result', pageOf(deliverySchema)),
  },
  'webhook-worker.getDelivery': {
    request: defineContract('webhook-worker.getDelivery.request', withOwner({ endpoint_id: endpointId, delivery_id: deliveryId }, ['endpoint_id', 'delivery_id'])),
    result: defineContract('webhook-worker.getDelivery.result', {
      type: 'object',
      required: ['delivery', 'request_body', 'attempt_log'],
      additionalProperties: false,
      properties: {
        delivery: deliverySchema,
        request_body: {
          type: ['string', 'null'],
          description: 'The body every attempt sends, byte for byte as signed. Null once an erasure removed what named the user.',
        },
        attempt_log: { type: 'array', items: attemptSchema },
      },
    } as const),
  },
  /**
   * Sends a settled (delivered, abandoned or cancelled) delivery again by hand: one more attempt, with the
   * same id, and no retries after it. Errors: not_found, delivery_in_progress, delivery_withheld
   * (it names an erased user).
   */
  'webhook-worker.redeliver': {
    atMostOnce: true,
    request: defineContract('webhook-worker.redeliver.request', withOwner({ endpoint_id: endpointId, delivery_id: deliveryId }, ['endpoint_id', 'delivery_id'])),
    result: defineContract('webhook-worker.redeliver.result', deliverySchema),
  },
  /**
   * Recover: redelivers, once each and paced through the endpoint's limits, every delivery created
   * in [since, until) in one of `statuses` (default abandoned and held), of `events` if given.
   * Errors: not_found, endpoint_paused, recovery_in_progress.
   */
  'webhook-worker.startRecovery': {
    atMostOnce: true,
    request: defineContract(
      'webhook-worker.startRecovery.request',
      withOwner(
        {
          endpoint_id: endpointId,
          member_name: { type: 'string' },
          since: { type: 'string', format: 'date-time' },
          until: { type: 'string', format: 'date-time' },
          statuses: { type: 'array', items: { enum: RECOVERABLE_STATUSES }, minItems: 1, uniqueItems: true },
          events: { type: 'array', items: { enum: EVENT_NAMES }, minItems: 1, uniqueItems: true },
        },
        ['endpoint_id', 'member_name', 'since'],
      ),
    ),
    result: defineContract('webhook-worker.startRecovery.result', recoverySchema),
  },
  /** The endpoint's recoveries, newest first (the latest 20). Errors: not_found. */
  'webhook-worker.listRecoveries': {
    request: defineContract('webhook-worker.listRecoveries.request', withOwner({ endpoint_id: endpointId }, ['endpoint_id'])),
    result: defineContract('webhook-worker.listRecoveries.result', listOf(recoverySchema)),
  },
  'webhook-worker.getRecovery': {
    request: defineContract('webhook-worker.getRecovery.request', withOwner({ endpoint_id: endpointId, recovery_id: { type: 'string', format: 'uuid' } }, ['endpoint_id', 'recovery_id'])),
    result: defineContract('webhook-worker.getRecovery.result', recoverySchema),
  },
  /** Stops a running recovery: nothing more is queued. Errors: not_found, recovery_ended. */
  'webhook-worker.cancelRecovery': {
    request: defineContract(
      'webhook-worker.cancelRecovery.request',
      withOwner({ endpoint_id: endpointId, recovery_id: { type: 'string', format: 'uuid' }, member_name: { type: 'string' } }, ['endpoint_id', 'recovery_id', 'member_name']),
    ),
    result: defineContract('webhook-worker.cancelRecovery.result', recoverySchema),
  },
  /** Pauses the endpoint by hand; paused already, it stays as it is. Errors: not_found. */
  'webhook-worker.pauseEndpoint': {
    request: defineContract('webhook-worker.pauseEndpoint.request', withOwner({ endpoint_id: endpointId, member_name: { type: 'string' } }, ['endpoint_id', 'member_name'])),
    result: defineContract('webhook-worker.pauseEndpoint.result', endpointSchema),
  },
  /** Resumes a paused endpoint: deliveries go out again; its held ones wait for a Recover. Errors: not_found. */
  'webhook-worker.resumeEndpoint': {
    request: defineContract('webhook-worker.resumeEndpoint.request', withOwner({ endpoint_id: endpointId, member_name: { type: 'string' } }, ['endpoint_id', 'member_name'])),
    result: defineContract('webhook-worker.resumeEndpoint.result', endpointSchema),
  },
  /** The app's webhook audit: pauses, resumes and recoveries, newest first (the latest 500). */
  'webhook-worker.listWebhookAudit': {
    request: defineContract('webhook-worker.listWebhookAudit.request', withOwner({}, [])),
    result: defineContract('webhook-worker.listWebhookAudit.result', listOf(auditEntrySchema)),
  },
  /**
   * A `listen` session: an endpoint without a URL whose deliveries go to the broker queue
   * `queue`, which the api instance holding the tool's connection consumes. The result shows its
   * signing secret, once. Errors: plan_limit_reached.
   */
  'webhook-worker.openListenSession': {
    atMostOnce: true,
    request: defineContract(
      'webhook-worker.openListenSession.request',
      withOwner({ queue: { type: 'string', minLength: 1, maxLength: 200 }, events: endpointFields.events, member_name: { type: 'string' } }, ['queue', 'events', 'member_name']),
    ),
    result: defineContract('webhook-worker.openListenSession.result', {
      type: 'object',
      required: ['endpoint_id', 'signing_secret'],
      additionalProperties: false,
      properties: { endpoint_id: { type: 'string', format: 'uuid' }, signing_secret: { type: 'string', pattern: '^whsec_' } },
    } as const),
  },
  /** The tool disconnected: nothing more is sent to the session; its history stays. */
  'webhook-worker.closeListenSession': {
    request: defineContract('webhook-worker.closeListenSession.request', withOwner({ endpoint_id: endpointId }, ['endpoint_id'])),
    result: defineContract('webhook-worker.closeListenSession.result', { type: 'object', additionalProperties: false } as const),
  },
} as const;

export type RpcMethod = keyof typeof rpcMethods;
export type RpcRequest<M extends RpcMethod> = ReturnType<(typeof rpcMethods)[M]['request']['parse']>;
export type RpcResult<M extends RpcMethod> = ReturnType<(typeof rpcMethods)[M]['result']['parse']>;
