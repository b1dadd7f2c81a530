import type { Request, RequestHandler } from 'express';
import type { Prisma } from '../database.js';
import type { AppRef } from '../product/actor.js';
import type { RouteContext } from './route-context.js';

/**
 * A route that changes product data: resolve the app, run the work in one transaction (which
 * writes its events to the outbox), wake the relay so they go out now, answer with the result.
 */
export function productAction(
  context: RouteContext,
  appOf: (request: Request) => AppRef | Promise<AppRef>,
  status: number,
  work: (tx: Prisma.TransactionClient, app: AppRef, request: Request) => Promise<unknown>,
): RequestHandler {
  return async (request, response) => {
    const app = await appOf(request);
    const body = await context.prisma.$transaction((tx) => work(tx, app, request));
    context.outboxRelay.wake();
    response.status(status).json(body);
  };
}
