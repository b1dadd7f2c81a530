import { Router } from 'express';
import type { Request } from 'express';
import { requireScope } from '../../auth/secret-key-auth.js';
import { readJsonBody } from '../../http/read-json-body.js';
import { ApiError } from '../../http/api-error.js';
import { eraseUserData, exportUserData } from '../../privacy/user-data.js';
import type { RouteContext } from '../route-context.js';

function externalIdOf(request: Request): string {
  const raw = request.params['externalId'];
  // Counted in characters, as the schema that accepted the id when the user was created counts
  // them (an emoji is one character and two UTF-16 units).
  // Text that cannot be stored (U+0000, a lone surrogate) is refused with the body (readJsonBody).
  if (typeof raw !== 'string' || raw.length === 0 || [...raw].length > 255) {
    throw new ApiError('validation_failed', 'The external id must be 1 to 255 characters.', { field: 'externalId' });
  }
  return raw;
}

/**
 * GET /api/v1/privacy/users/{externalId} — scope privacy:read: everything held about the user.
 * DELETE /api/v1/privacy/users/{externalId} — scope privacy:write: erases it; idempotent.
 */
export function privacyRoutes(context: RouteContext): Router {
  const router = Router();
  router.get('/privacy/users/:externalId', requireScope('privacy:read', context.links), ...readJsonBody, async (request, response) => {
    response.json(await exportUserData(context.prisma, request.apiKey!.app.id, externalIdOf(request)));
  });
  router.delete('/privacy/users/:externalId', requireScope('privacy:write', context.links), ...readJsonBody, async (request, response) => {
    const result = await eraseUserData(context.prisma, request.apiKey!.app.id, externalIdOf(request), context.erasureHashKey);
    context.outboxRelay.wake();
    response.json(result);
  });
  return router;
}
