import type { Request, RequestHandler, Response, Router } from 'express';
import type { Contract } from '@feedback/contracts';
import { methodNotAllowed } from '../http/method-not-allowed.js';

export type HttpMethod = 'get' | 'post' | 'patch' | 'delete';

/** An OpenAPI operation object, as the document serves it. */
export type Operation = Record<string, unknown>;

/**
 * One route, defined once. The router mounts it, its path answers any other method with 405, and
 * the OpenAPI document describes it, all from this. Each surface writes its routes with a helper
 * of its own (`apiV1Route`, `widgetRoute`, …), which fills in what its routes share.
 */
export interface RouteDefinition<Deps> {
  method: HttpMethod;
  /** Express path below the surface's prefix, `:name` for a parameter. */
  path: string;
  /** The operation as the OpenAPI document describes it. */
  operation: Operation;
  /** The contracts the api checks this route's requests and answers with: compiled when the route is mounted. */
  contracts: readonly Contract<unknown>[];
  /** The request's steps after the surface's own (authentication, body reading), built once. */
  handlers(deps: Deps): RequestHandler[];
}

/** A route's last step, given the body its route's contract has read. */
export type BodyHandler<B> = (request: Request, response: Response, body: B) => unknown;

/**
 * The handler of a route with a body contract: the body is checked before the handler runs, with
 * the validator compiled at start-up. A ContractViolation becomes 400 `validation_failed`.
 */
export function readBody<B>(contract: Contract<B>, handler: BodyHandler<B>): RequestHandler {
  return (request, response) => handler(request, response, contract.parse(request.body));
}

/**
 * Mounts `routes` on `router`, in their order, then a 405 with `Allow` for every other method on
 * each of their paths. Each contract is compiled here, once, so no request waits for it.
 */
export function mountRoutes<Deps>(router: Pick<Router, HttpMethod | 'all'>, routes: readonly RouteDefinition<Deps>[], deps: Deps, prefix = ''): void {
  const allowed = new Map<string, string[]>();
  for (const route of routes) {
    for (const contract of route.contracts) contract.compile();
    router[route.method](`${prefix}${route.path}`, ...route.handlers(deps));
    allowed.set(route.path, [...(allowed.get(route.path) ?? []), route.method.toUpperCase()]);
  }
  for (const [path, methods] of allowed) router.all(`${prefix}${path}`, methodNotAllowed(methods));
}

/** The OpenAPI `paths` of `routes` under `prefix`: `:name` becomes `{name}`. */
export function openApiPaths(prefix: string, routes: readonly RouteDefinition<never>[]): Record<string, Record<string, Operation>> {
  const paths: Record<string, Record<string, Operation>> = {};
  for (const route of routes) {
    const path = `${prefix}${route.path.replace(/:(\w+)/g, '{$1}')}`;
    paths[path] = { ...paths[path], [route.method]: route.operation };
  }
  return paths;
}
