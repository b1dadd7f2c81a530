import type { RequestHandler } from 'express';
import type { RpcResult } from '@feedback/contracts';
import { isWellFormedPublicKey } from '@feedback/keys';
import { RpcError } from '@feedback/messaging';
import type { RpcClient } from '@feedback/messaging';
import { ApiError } from '../http/api-error.js';

export type WidgetApp = RpcResult<'authority.verifyPublicKey'>;

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** The app whose widget sent this request, set by publicKeyAuth. */
      widgetApp?: WidgetApp;
    }
  }
}

/** Public keys remembered at most, known and unknown each; past this many, the oldest goes first. */
const MAX_REMEMBERED = 10_000;

function remember<V>(entries: Map<string, V>, key: string, value: V): void {
  entries.delete(key);
  entries.set(key, value);
  if (entries.size > MAX_REMEMBERED) entries.delete(entries.keys().next().value!);
}

const noSuchApp = () => new ApiError('invalid_public_key', 'No app has this public key.', {}, { 'WWW-Authenticate': 'Bearer realm="widget"' });

export interface PublicKeyAuthOptions {
  /** How long an app found by its public key is reused without asking the authority. Default: 300000. */
  cacheMs?: number;
  /**
   * How long a public key no app has is refused without asking the authority again, so that
   * random keys cost it one call each, not one per request. Default: 60000.
   */
  unknownKeyCacheMs?: number;
}

/**
 * Authenticates widget requests by the app's public key (`Authorization: Bearer pk_live_…`).
 * The key is public, so this identifies the app rather than proving anything; what a widget
 * may do is limited to what an end user may do. Answers are cached: an app's public key never
 * changes and apps are not deleted. A key no app has is cached too, briefly, since a new app's
 * key is new and random: no key refused now is one an app is about to get.
 */
export function publicKeyAuth(rpc: RpcClient, options: PublicKeyAuthOptions = {}): RequestHandler {
  const cacheMs = options.cacheMs ?? 300_000;
  const unknownKeyCacheMs = options.unknownKeyCacheMs ?? 60_000;
  const cache = new Map<string, { app: WidgetApp; until: number }>();
  const unknown = new Map<string, number>();
  return async (request, _response, next) => {
    try {
      const key = /^Bearer\s+(\S+)$/i.exec(request.get('authorization') ?? '')?.[1];
      if (!key || !isWellFormedPublicKey(key)) {
        throw new ApiError('invalid_public_key', "Send the app's public key as \"Authorization: Bearer pk_live_…\".", {}, {
          'WWW-Authenticate': 'Bearer realm="widget"',
        });
      }
      const now = Date.now();
      const hit = cache.get(key);
      if (hit && hit.until > now) {
        request.widgetApp = hit.app;
        return next();
      }
      if ((unknown.get(key) ?? 0) > now) throw noSuchApp();
      try {
        request.widgetApp = await rpc.call('authority.verifyPublicKey', { public_key: key });
      } catch (error) {
        if (error instanceof RpcError && error.code === 'unknown_key') {
          if (unknownKeyCacheMs > 0) remember(unknown, key, Date.now() + unknownKeyCacheMs);
          throw noSuchApp();
        }
        throw error;
      }
      remember(cache, key, { app: request.widgetApp, until: Date.now() + cacheMs });
      next();
    } catch (error) {
      next(error);
    }
  };
}
