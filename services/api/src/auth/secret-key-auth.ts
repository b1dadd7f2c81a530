import type { RequestHandler } from 'express';
import type { RpcResult, Scope } from '@feedback/contracts';
import { hashSecretKey, isWellFormedSecretKey } from '@feedback/keys';
import { RpcError, RpcTimeoutError } from '@feedback/messaging';
import type { RpcClient } from '@feedback/messaging';
import { ApiError } from '../http/api-error.js';

export type ApiKeyIdentity = RpcResult<'authority.verifySecretKey'>;

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** The authenticated key, set by secretKeyAuth. */
      apiKey?: ApiKeyIdentity;
    }
  }
}

const CHALLENGE = 'Bearer realm="api"';

function unauthorized(code: 'missing_api_key' | 'invalid_api_key' | 'revoked_api_key', message: string): ApiError {
  const error = code === 'missing_api_key' ? '' : ', error="invalid_token"';
  return new ApiError(code, message, {}, { 'WWW-Authenticate': `${CHALLENGE}${error}` });
}

/**
 * Authenticates `Authorization: Bearer sk_live_…`. A malformed key is refused by its checksum
 * without asking anyone; a well-formed one is looked up by its hash at the authority.
 * Neither the key nor its hash ever reaches a response or a log line.
 */
export function secretKeyAuth(rpc: RpcClient): RequestHandler {
  return async (request, _response, next) => {
    try {
      const header = request.get('authorization');
      if (!header) throw unauthorized('missing_api_key', 'Send your secret key as "Authorization: Bearer sk_live_…".');
      const match = /^Bearer\s+(\S+)$/i.exec(header);
      const key = match?.[1];
      if (!key || !isWellFormedSecretKey(key)) {
        throw unauthorized('invalid_api_key', 'The secret key is not valid. Copy it again from the dashboard.');
      }
      let identity: ApiKeyIdentity;
      try {
        identity = await rpc.call('authority.verifySecretKey', { key_hash: hashSecretKey(key) });
      } catch (error) {
        if (error instanceof RpcError && error.code === 'unknown_key') {
          throw unauthorized('invalid_api_key', 'The secret key is not valid. Copy it again from the dashboard.');
        }
        if (error instanceof RpcError && error.code === 'revoked_key') {
          throw unauthorized('revoked_api_key', 'This secret key has been revoked. Restore it or rotate it in the dashboard.');
        }
        if (error instanceof RpcTimeoutError) {
          throw new ApiError('service_unavailable', 'Authentication is unavailable right now. Retry shortly.', {}, { 'Retry-After': '1' });
        }
        throw error;
      }
      if (identity.plan === 'free') {
        throw new ApiError('plan_upgrade_required', 'The REST API is not included in the Free plan. Upgrade to Starter or Pro.');
      }
      request.apiKey = identity;
      next();
    } catch (error) {
      next(error);
    }
  };
}

/** Refuses a key without `scope` with the 403 body of specification section 7. */
export function requireScope(scope: Scope, links: { dashboardUrl: string; docsUrl: string }): RequestHandler {
  return (request, _response, next) => {
    const key = request.apiKey;
    if (!key) return next(new ApiError('missing_api_key', 'Authentication is required.'));
    if (key.full_access || key.scopes.includes(scope)) return next();
    next(
      new ApiError('insufficient_scope', `This key lacks the "${scope}" scope. A team Owner or Admin can grant it in the dashboard.`, {
        required_scope: scope,
        granted_scopes: key.scopes,
        manage_scopes_url: `${links.dashboardUrl}/apps/${key.app.id}/settings/api-keys`,
        docs_url: `${links.docsUrl}/api-keys`,
      }),
    );
  };
}
