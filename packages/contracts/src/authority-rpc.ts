import { defineContract, requiredText } from './contract.js';
import {
  apiKeySchema,
  appSchema,
  appWithPlanSchema,
  keyAuditEntrySchema,
  memberSchema,
  PLANS,
  planVersionSchema,
  ROLES,
  scopeSchema,
  sessionTokenSchema,
  teamSchema,
} from './authority-views.js';
import { recordIdSchema } from './record-id.js';
import { listOf } from './rpc-lists.js';

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

/** The commands the authority answers on its commands queue: sign-up and sessions, teams, members, apps and keys. */
export const authorityRpcMethods = {

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
  'authority.getTeam': {
    request: sessionOnly('authority.getTeam.request'),
    result: defineContract('authority.getTeam.result', teamSchema),
  },
  /**
   * Owner only. The plan applies at once; the worker hears it as `team.plan_changed` and pauses the
   * endpoints a lower plan leaves out. Errors: propagation_unconfirmed.
   */
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
  /** Any member of the app's team. Errors: not_found (not an app of this team). */
  'authority.getApp': {
    request: defineContract('authority.getApp.request', withSession({ app_id: recordIdSchema }, ['app_id'])),
    result: defineContract('authority.getApp.result', appSchema),
  },
  /**
   * Owner or Admin of the app's team: may manage its webhook endpoints (specification 1.4).
   * Answers the app and the team's plan. Errors: insufficient_role, not_found.
   */
  'authority.authorizeWebhookManagement': {
    request: defineContract('authority.authorizeWebhookManagement.request', withSession({ app_id: recordIdSchema }, ['app_id'])),
    result: defineContract('authority.authorizeWebhookManagement.result', {
      ...appWithPlanSchema,
      required: [...appWithPlanSchema.required, 'plan_version', 'grant'],
      properties: {
        ...appWithPlanSchema.properties,
        plan_version: planVersionSchema,
        /** The authority's signature over the app, team and plan: the worker acts only on it (a JWT, a minute long). */
        grant: { type: 'string' },
      },
    } as const),
  },
} as const;
