import { defineContract } from './contract.js';
import { PLANS, planVersionSchema } from './authority-views.js';

/**
 * Published by the authority on `authority.events` when a key stops being valid as it was
 * (revoked, rotated, scopes changed, plan changed). Every api instance drops it from its cache
 * and acknowledges with its instance id; the dashboard call returns only after every instance
 * holding a cache lease has.
 */
export const keyChangeContract = defineContract('authority.key-changed', {
  type: 'object',
  required: ['change_id', 'key_ids', 'reason'],
  additionalProperties: false,
  properties: {
    change_id: { type: 'string', format: 'uuid' },
    /** Empty means every key (for example, a team's plan changed). */
    key_ids: { type: 'array', items: { type: 'string' } },
    team_id: { type: 'string' },
    reason: { enum: ['revoked', 'restored', 'rotated', 'scopes_changed', 'plan_changed'] },
  },
} as const);
export type KeyChange = ReturnType<typeof keyChangeContract.parse>;

/** Sent by api instances every few seconds: when each key was last used, so no request writes. */
export const keyUsageContract = defineContract('authority.key-usage', {
  type: 'object',
  required: ['usages'],
  additionalProperties: false,
  properties: {
    usages: {
      type: 'array',
      maxItems: 10_000,
      items: {
        type: 'object',
        required: ['key_id', 'last_used_at'],
        additionalProperties: false,
        properties: { key_id: { type: 'string', format: 'uuid' }, last_used_at: { type: 'string', format: 'date-time' } },
      },
    },
  },
} as const);
export type KeyUsage = ReturnType<typeof keyUsageContract.parse>;

/**
 * Published by the authority on `authority.events` when a team's plan changes. The worker keeps
 * the plan with its version, and fits the team's webhook endpoints to it.
 */
export const teamPlanChangedContract = defineContract('authority.team-plan-changed', {
  type: 'object',
  required: ['team_id', 'plan', 'plan_version'],
  additionalProperties: false,
  properties: {
    team_id: { type: 'string', format: 'uuid' },
    plan: { enum: PLANS },
    plan_version: planVersionSchema,
  },
} as const);
export type TeamPlanChanged = ReturnType<typeof teamPlanChangedContract.parse>;
