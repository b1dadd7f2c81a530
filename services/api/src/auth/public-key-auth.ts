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

/**
 * Authenticates widget requests by the app's public key (`Authorization: Bearer pk_live_…`).
 * The key is public, so this identifies the app rather than proving anything; what a widget
 * may do is limited to what an end user may do. Answers are cached: an app's public key never
 * changes and apps are not deleted.
 */
export function publicKeyAuth(rpc: RpcClient, cacheMs = 300_000): RequestHandler {
  const cache = new Map<string, { app: WidgetApp; until: number }>();
  return async (request, _response, next) => {
    try {
      const key = /^Bearer\s+(\S+)$/i.exec(request.get('authorization') ?? '')?.[1];
      if (!key || !isWellFormedPublicKey(key)) {
        throw new ApiError('invalid_public_key', "Send the app's public key as \"Authorization: Bearer pk_live_…\".", {}, {
          'WWW-Authenticate': 'Bearer realm="widget"',
        });
      }
      const hit = cache.get(key);
      if (hit && hit.until > Date.now()) {
        request.widgetApp = hit.app;
        return next();
      }
      try {
        request.widgetApp = await rpc.call('authority.verifyPublicKey', { public_key: key });
      } catch (error) {
        if (error instanceof RpcError && error.code === 'unknown_key') {
          throw new ApiError('invalid_public_key', 'No app has this public key.', {}, { 'WWW-Authenticate': 'Bearer realm="widget"' });
        }
        throw error;
      }
      cache.set(key, { app: request.widgetApp, until: Date.now() + cacheMs });
      next();
    } catch (error) {
      next(error);
    }
  };
}
