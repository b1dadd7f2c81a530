/** Shapes the authority returns for the dashboard: members, teams, apps, keys and their audit trail. */
import { SCOPE_NAMES } from './scopes.js';

export const ROLES = ['owner', 'admin', 'member'] as const;
export const PLANS = ['free', 'starter', 'pro'] as const;
export type Plan = (typeof PLANS)[number];

/** Webhook endpoints a team may have on each plan (specification section 8). */
export const WEBHOOK_ENDPOINT_LIMITS = { free: 0, starter: 3, pro: Number.POSITIVE_INFINITY } as const;

/**
 * A team's plan changes counted by the authority, 1 for the plan it started with. Whoever keeps
 * the plan keeps the highest version heard: an older word never overwrites a newer one.
 */
export const planVersionSchema = { type: 'integer', minimum: 1 } as const;

export const scopeSchema = { enum: SCOPE_NAMES } as const;

/**
 * Who is acting: the member's signed session token, as the dashboard sent it, never a field of the
 * request body. The answering service verifies it itself, so a session ended at sign-out is
 * refused whichever api instance forwards it.
 */
export const sessionTokenSchema = {
  type: 'string',
  minLength: 1,
  maxLength: 4096,
  description: "The member's session token (a JWT), verified by the service that answers.",
} as const;

export const memberSchema = {
  type: 'object',
  required: ['id', 'email', 'name', 'role', 'created_at'],
  additionalProperties: false,
  properties: {
    id: { type: 'string', format: 'uuid' },
    email: { type: 'string' },
    name: { type: 'string' },
    role: { enum: ROLES },
    created_at: { type: 'string', format: 'date-time' },
  },
} as const;

export const teamSchema = {
  type: 'object',
  required: ['id', 'name', 'plan', 'created_at'],
  additionalProperties: false,
  properties: {
    id: { type: 'string', format: 'uuid' },
    name: { type: 'string' },
    plan: { enum: PLANS },
    created_at: { type: 'string', format: 'date-time' },
  },
} as const;

export const appSchema = {
  type: 'object',
  required: ['id', 'name', 'public_key', 'created_at'],
  additionalProperties: false,
  properties: {
    id: { type: 'integer' },
    name: { type: 'string' },
    public_key: { type: 'string' },
    created_at: { type: 'string', format: 'date-time' },
  },
} as const;

/** A key as the dashboard lists it: never the secret, never its hash. */
export const apiKeySchema = {
  type: 'object',
  required: ['app_id', 'display_prefix', 'scopes', 'full_access', 'status', 'last_used_at', 'created_at', 'rotated_at'],
  additionalProperties: false,
  properties: {
    app_id: { type: 'integer' },
    display_prefix: { type: 'string' },
    scopes: { type: 'array', items: scopeSchema },
    full_access: { type: 'boolean' },
    status: { enum: ['active', 'revoked'] },
    last_used_at: { type: ['string', 'null'], format: 'date-time' },
    created_at: { type: 'string', format: 'date-time' },
    rotated_at: { type: ['string', 'null'], format: 'date-time' },
  },
} as const;

export const KEY_ACTIONS = ['created', 'scopes_granted', 'scopes_removed', 'full_access_granted', 'full_access_removed', 'revoked', 'restored', 'rotated'] as const;

export const keyAuditEntrySchema = {
  type: 'object',
  required: ['id', 'action', 'actor', 'scopes', 'created_at'],
  additionalProperties: false,
  properties: {
    id: { type: 'string', format: 'uuid' },
    action: { enum: KEY_ACTIONS },
    actor: {
      type: 'object',
      required: ['member_id', 'name'],
      additionalProperties: false,
      properties: { member_id: { type: ['string', 'null'] }, name: { type: ['string', 'null'] } },
    },
    scopes: { type: 'array', items: scopeSchema, description: 'Scopes granted or removed by this action.' },
    created_at: { type: 'string', format: 'date-time' },
  },
} as const;

/** An app as events and key checks name it. */
export const appRefSchema = {
  type: 'object',
  required: ['id', 'public_key'],
  additionalProperties: false,
  properties: { id: { type: 'integer' }, public_key: { type: 'string' } },
} as const;

/** An app with its team and the team's plan. */
export const appWithPlanSchema = {
  type: 'object',
  required: ['app', 'team_id', 'plan'],
  additionalProperties: false,
  properties: { app: appRefSchema, team_id: { type: 'string' }, plan: { enum: PLANS } },
} as const;
