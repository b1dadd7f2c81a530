import type { Request } from 'express';
import type { Prisma } from '../database.js';
import type { AppRef } from '../product/actor.js';
import type { RouteContext } from './route-context.js';
import type { BodyHandler } from './route-definition.js';

/**
 * A route that changes product data, given its body already checked: run the work in one
 * transaction (which writes its events to the outbox), wake the relay so they go out now, answer
 * with the result. The app is the one the request's earlier steps found.
 */
export function productAction<B>(
  context: RouteContext,
  appOf: (request: Request) => AppRef,
  status: number,
  work: (tx: Prisma.TransactionClient, app: AppRef, body: B, request: Request) => Promise<unknown>,
): BodyHandler<B> {
  return async (request, response, input) => {
    const app = appOf(request);
    const body = await context.prisma.$transaction((tx) => work(tx, app, input, request));
    context.outboxRelay.wake();
    response.status(status).json(body);
  };
}
