import type { Session } from '../session/session-store';

type Plan = Session['team']['plan'];
type Role = Session['member']['role'];

const PLANS: Record<Plan, string> = { free: 'Free', starter: 'Starter', pro: 'Pro' };
const ROLES: Record<Role, string> = { owner: 'Owner', admin: 'Admin', member: 'Member' };

export const planName = (plan: Plan): string => PLANS[plan];
export const roleName = (role: Role): string => ROLES[role];

/** What each plan includes (specification 1.3 and 8). */
export const PLAN_LIMITS: Record<Plan, { restApi: string; webhooks: string }> = {
  free: { restApi: 'Not included', webhooks: 'Not included' },
  starter: { restApi: 'Included', webhooks: 'Up to 3 endpoints' },
  pro: { restApi: 'Included', webhooks: 'Unlimited endpoints' },
};

export const PLAN_ORDER: readonly Plan[] = ['free', 'starter', 'pro'];
