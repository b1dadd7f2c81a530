import type { RpcMethod } from '@feedback/contracts';
import type { ErrorCode } from '../../http/api-error.js';

/**
 * Every /dashboard/v1 route that forwards one authority command: its request is the JSON body (if
 * `body`), the path parameters (`params`) and the member's session token as `session` (unless
 * `public`), which the authority verifies itself.
 * Each row becomes a route (`commandRoute`): the router and the OpenAPI document both read it.
 */
export interface DashboardCommand {
  method: 'get' | 'post' | 'patch' | 'delete';
  /** Express path below /dashboard/v1. */
  path: string;
  command: RpcMethod;
  summary: string;
  /** Answered without a member session. Default: false. */
  public?: boolean;
  /** Default: 200. */
  status?: 200 | 201 | 204;
  /** The command's fields (besides session and params) come from the JSON body. Default: false. */
  body?: boolean;
  /** Path parameter name -> command field. */
  params?: Record<string, 'app_id' | 'member_id'>;
  /** Counted before the command (RequestLimits): sign-ups per address, sign-ins per address and account. Default: none. */
  limit?: 'signUp' | 'signIn';
  /**
   * Codes the command may answer, besides those of any route (a bad path, 429, 500, 503, and 401
   * `invalid_session` for a member route), for the OpenAPI document. Default: none.
   */
  errors?: readonly ErrorCode[];
}

const app = { appId: 'app_id' } as const;
/** Who may not, and an app of another team: what every key route may answer. */
const keyErrors = ['insufficient_role', 'not_found'] as const;
/** A key change waits for every api instance: one that does not confirm in time is 503 `propagation_unconfirmed`. */
const keyChangeErrors = [...keyErrors, 'propagation_unconfirmed'] as const;

export const DASHBOARD_COMMANDS: readonly DashboardCommand[] = [
  { method: 'post', path: '/sign-up', command: 'authority.signUp', public: true, body: true, status: 201, errors: ['email_taken'], limit: 'signUp',
    summary: 'Creates a team on the Free plan and its Owner; answers a session.' },
  { method: 'post', path: '/sign-in', command: 'authority.signIn', public: true, body: true, errors: ['invalid_credentials'], limit: 'signIn',
    summary: 'Answers a session for an email and password.' },
  { method: 'get', path: '/session', command: 'authority.getSession',
    summary: "The session: when the token sent expires, and the member (with their current role) and team as they are now." },
  { method: 'post', path: '/session/renew', command: 'authority.renewSession',
    summary: "A new token for the same session, from a token still valid. It expires after the token lifetime, or at the session's absolute end (12 hours after sign-in, by default) if that comes first." },
  { method: 'post', path: '/sign-out', command: 'authority.endSession', status: 204,
    summary: 'Ends the session: every token of it gets 401 invalid_session from now on, on every server.' },
  { method: 'get', path: '/team', command: 'authority.getTeam', summary: "The signed-in member's team." },
  { method: 'patch', path: '/team', command: 'authority.changePlan', body: true, errors: ['insufficient_role', 'propagation_unconfirmed'],
    summary: "Owner only: changes the plan, at once. Webhook endpoints beyond a lower plan's limit are paused, newest first, and resume when the plan includes them again." },
  { method: 'get', path: '/members', command: 'authority.listMembers', summary: "The team's members." },
  { method: 'post', path: '/members', command: 'authority.addMember', body: true, status: 201, errors: ['insufficient_role', 'email_taken'],
    summary: 'Owner or Admin: adds a member; only an Owner adds Admins and Owners.' },
  { method: 'patch', path: '/members/:memberId', command: 'authority.changeRole', body: true, params: { memberId: 'member_id' }, errors: ['insufficient_role', 'not_found', 'last_owner'],
    summary: "Owner only: changes a member's role. The last Owner stays one." },
  { method: 'delete', path: '/members/:memberId', command: 'authority.removeMember', status: 204, params: { memberId: 'member_id' }, errors: ['insufficient_role', 'not_found', 'last_owner'],
    summary: 'Removes a member (Admins remove Members; Owners anyone). The last Owner cannot be removed.' },
  { method: 'get', path: '/apps', command: 'authority.listApps', summary: "The team's apps." },
  { method: 'post', path: '/apps', command: 'authority.createApp', body: true, status: 201, errors: ['insufficient_role'],
    summary: "Owner or Admin: creates an app and its key, whose value is not shown: rotate the key to get it (shown once)." },
  { method: 'get', path: '/apps/:appId/api-key', command: 'authority.getApiKey', params: app, errors: keyErrors,
    summary: "Owner or Admin: the app's key: scopes, Full access, status, last usage. Never the key." },
  { method: 'patch', path: '/apps/:appId/api-key', command: 'authority.changeKeyScopes', body: true, params: app, errors: keyChangeErrors,
    summary: 'Owner or Admin: grants or removes scopes, or sets Full access. Effective on every API server when this returns.' },
  { method: 'post', path: '/apps/:appId/api-key/revoke', command: 'authority.revokeKey', params: app, errors: keyChangeErrors,
    summary: 'Owner or Admin: every request with the key gets 401 once this returns. The key does not change.' },
  { method: 'post', path: '/apps/:appId/api-key/restore', command: 'authority.restoreKey', params: app, errors: keyChangeErrors,
    summary: 'Owner or Admin: the same key works again.' },
  { method: 'post', path: '/apps/:appId/api-key/rotate', command: 'authority.rotateKey', params: app, errors: keyErrors,
    summary: 'Owner or Admin: a new active key, shown once, with the same scopes and Full access; the old key gets 401 once this returns, a revoked one included.' },
  { method: 'get', path: '/apps/:appId/api-key/audit', command: 'authority.listKeyAudit', params: app, errors: keyErrors,
    summary: 'Owner or Admin: who granted, removed, revoked, restored or rotated, and when; newest first.' },
];
