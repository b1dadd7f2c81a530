import type { RequestHandler, Router } from 'express';
import { ApiError } from './api-error.js';

/** Mounted after a path's handlers: any other method gets 405 with the Allow header. */
export function methodNotAllowed(allowed: readonly string[]): RequestHandler {
  return (request, _response, next) => {
    next(
      new ApiError('method_not_allowed', `${request.method} is not allowed here. Allowed: ${allowed.join(', ')}.`, { allowed_methods: allowed }, {
        Allow: allowed.join(', '),
      }),
    );
  };
}

/** A route as Express keeps it in a router's stack (a `use` of another router has none). */
interface RouteLayer {
  route?: { path: string; methods: Record<string, boolean> };
}

/** Each path and the methods the router's own routes take on it (not those of routers it uses). */
export function routesOf(router: Router): Map<string, string[]> {
  const methods = new Map<string, string[]>();
  for (const layer of router.stack as RouteLayer[]) {
    if (!layer.route) continue;
    const taken = Object.keys(layer.route.methods).filter((method) => method !== '_all');
    methods.set(layer.route.path, [...(methods.get(layer.route.path) ?? []), ...taken.map((method) => method.toUpperCase())]);
  }
  return methods;
}

/**
 * Called once a router's routes are all defined (or some of them, before a middleware the rest
 * sit behind): any other method on one of their paths gets 405 with the methods it takes, rather
 * than the 404 of a path that does not exist. A path that already answers other methods is left
 * as it is.
 */
export function answerOtherMethods(router: Router): void {
  const answered = new Set((router.stack as RouteLayer[]).filter((layer) => layer.route?.methods['_all']).map((layer) => layer.route!.path));
  for (const [path, allowed] of routesOf(router)) {
    if (allowed.length > 0 && !answered.has(path)) router.all(path, methodNotAllowed(allowed));
  }
}
