import type { Request } from 'express';
import type { Contract } from '@feedback/contracts';
import type { Prisma } from '../../database.js';
import { errorResponse, errorResponseWithHeaders, json, ref, requestBody } from '../../openapi/openapi-parts.js';
import type { Schema } from '../../openapi/openapi-parts.js';
import type { AppRef } from '../../product/actor.js';
import { productAction } from '../product-action.js';
import type { RouteContext } from '../route-context.js';
import { readBody } from '../route-definition.js';
import type { RouteDefinition } from '../route-definition.js';

/** A /widget/v1 route: an end user's action, one POST that creates one record. */
interface WidgetRouteSpec<B> {
  /** Below /widget/v1. */
  path: string;
  operationId: string;
  summary: string;
  /** The body's contract, checked before `work`. */
  body: Contract<B>;
  /** The component schema of the record answered. */
  result: string;
  /** Path parameters. Default: none. */
  parameters?: Schema[];
  /** The change, in one transaction with its event; answered 201. */
  work: (tx: Prisma.TransactionClient, app: AppRef, input: B, request: Request) => Promise<unknown>;
}

function widgetOperation(spec: Omit<WidgetRouteSpec<unknown>, 'work'>) {
  const parameters = spec.parameters ?? [];
  return {
    operationId: spec.operationId,
    summary: spec.summary,
    tags: ['Widget'],
    security: [{ publicKey: [] }],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...requestBody(spec.body.schema),
    responses: {
      '201': { description: 'Created.', content: json(ref(spec.result)) },
      '400': errorResponse('`validation_failed` with `field`.'),
      '401': errorResponse('`invalid_public_key`.'),
      '404': errorResponse('`not_found`: no such record (or, for replies, not your ticket).'),
      '409': errorResponse('`ticket_closed`.'),
      '429': errorResponseWithHeaders('`rate_limited`: too many requests from this address (IPv6: its /64), or with this public key.', {
        'Retry-After': 'Seconds to wait before trying again.',
      }),
      '500': errorResponse('`internal_error`: ours; retry later, quoting X-Request-Id to support.'),
      '503': errorResponseWithHeaders('`service_unavailable`.', { 'Retry-After': 'Seconds to wait before retrying.' }),
    },
  };
}

/**
 * A /widget/v1 route. The surface has counted the request, checked the public key and read the
 * body; the route checks the body, then runs its work for the key's app.
 */
export function widgetRoute<B>(spec: WidgetRouteSpec<B>): RouteDefinition<RouteContext> {
  return {
    method: 'post',
    path: spec.path,
    operation: widgetOperation(spec),
    contracts: [spec.body],
    handlers: (context) => [readBody(spec.body, productAction(context, (request) => request.widgetApp!.app, 201, spec.work))],
  };
}
