import type { Request } from 'express';
import { ApiError } from '../../http/api-error.js';
import { json, pathParameter } from '../../openapi/openapi-parts.js';
import { eraseUserData, erasureResultSchema, exportResultSchema, exportUserData } from '../../privacy/user-data.js';
import { apiV1Route } from './api-v1-route.js';

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

const externalId = pathParameter('externalId', { type: 'string', maxLength: 255 }, "Your system's id for the user.");

/** GET /api/v1/privacy/users/{externalId} — scope privacy:read: everything held about the user. */
export const exportUserDataRoute = apiV1Route({
  method: 'get',
  path: '/privacy/users/:externalId',
  scope: 'privacy:read',
  operationId: 'exportUserData',
  summary: 'Everything held about one of your users.',
  tags: 'Privacy',
  parameters: [externalId],
  responses: { '200': { description: 'The export.', content: json(exportResultSchema) } },
  handler: (context) => async (request, response) => {
    response.json(await exportUserData(context.prisma, request.apiKey!.app.id, externalIdOf(request)));
  },
});

/** DELETE /api/v1/privacy/users/{externalId} — scope privacy:write: erases it; idempotent. */
export const eraseUserDataRoute = apiV1Route({
  method: 'delete',
  path: '/privacy/users/:externalId',
  scope: 'privacy:write',
  operationId: 'eraseUserData',
  summary: 'Erases one of your users: anonymises their suggestions, deletes the rest, and no later webhook carries them. Idempotent.',
  tags: 'Privacy',
  parameters: [externalId],
  responses: { '200': { description: 'What was erased (zeros when there was nothing left).', content: json(erasureResultSchema) } },
  handler: (context) => async (request, response) => {
    const result = await eraseUserData(context.prisma, request.apiKey!.app.id, externalIdOf(request), context.erasureHashKey);
    context.outboxRelay.wake();
    response.json(result);
  },
});
