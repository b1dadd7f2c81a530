import { Router } from 'express';
import { analyticsFor } from '../../analytics/analytics.js';
import { requireScope } from '../../auth/secret-key-auth.js';
import { readJsonBody } from '../../http/read-json-body.js';
import type { RouteContext } from '../route-context.js';

/** GET /api/v1/analytics — scope analytics:read. */
export function analyticsRoute(context: RouteContext): Router {
  return Router().get('/analytics', requireScope('analytics:read', context.links), ...readJsonBody, async (request, response) => {
    response.json(await analyticsFor(context.prisma, request.apiKey!.app.id, request.query));
  });
}
