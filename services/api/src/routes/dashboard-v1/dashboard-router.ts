import { Router } from 'express';
import { memberAuth } from '../../auth/member-auth.js';
import type { RouteContext } from '../route-context.js';
import { signUpRoute } from './sign-up.js';
import { signInRoute } from './sign-in.js';
import { getTeamRoute } from './get-team.js';
import { changePlanRoute } from './change-plan.js';
import { listMembersRoute } from './list-members.js';
import { addMemberRoute } from './add-member.js';
import { changeRoleRoute } from './change-role.js';
import { removeMemberRoute } from './remove-member.js';
import { listAppsRoute } from './list-apps.js';
import { createAppRoute } from './create-app.js';
import { getApiKeyRoute } from './get-api-key.js';
import { changeKeyScopesRoute } from './change-key-scopes.js';
import { revokeKeyRoute } from './revoke-key.js';
import { restoreKeyRoute } from './restore-key.js';
import { rotateKeyRoute } from './rotate-key.js';
import { listKeyAuditRoute } from './list-key-audit.js';

/** Every /dashboard/v1 route: sign-up and sign-in are public, the rest need a member session. */
export function dashboardRouter(context: RouteContext): Router {
  const router = Router();
  router.use(signUpRoute(context));
  router.use(signInRoute(context));
  router.use(memberAuth(context.rpc));
  router.use(getTeamRoute(context));
  router.use(changePlanRoute(context));
  router.use(listMembersRoute(context));
  router.use(addMemberRoute(context));
  router.use(changeRoleRoute(context));
  router.use(removeMemberRoute(context));
  router.use(listAppsRoute(context));
  router.use(createAppRoute(context));
  router.use(getApiKeyRoute(context));
  router.use(changeKeyScopesRoute(context));
  router.use(revokeKeyRoute(context));
  router.use(restoreKeyRoute(context));
  router.use(rotateKeyRoute(context));
  router.use(listKeyAuditRoute(context));
  return router;
}
