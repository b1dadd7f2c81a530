import type { RouteContext } from '../../route-context.js';
import type { RouteDefinition } from '../../route-definition.js';
import { APP_WEBHOOK_ROUTES } from './app-webhook-routes.js';
import { DELIVERY_ROUTES } from './delivery-routes.js';
import { ENDPOINT_ROUTES } from './endpoint-routes.js';
import { RECOVERY_ROUTES } from './recovery-routes.js';

/**
 * Webhook endpoints of an app, for Owners and Admins. The authority decides who may, and tells
 * the team's plan; the worker owns the endpoints and answers the commands. The audit and `listen`
 * come first: the endpoint routes' `:endpointId` would take their names.
 */
export const WEBHOOK_ROUTES: readonly RouteDefinition<RouteContext>[] = [...APP_WEBHOOK_ROUTES, ...ENDPOINT_ROUTES, ...DELIVERY_ROUTES, ...RECOVERY_ROUTES];
