import type { Request, RequestHandler } from 'express';
import type { Scope } from '@feedback/contracts';
import { hashSecretKey, isWellFormedSecretKey } from '@feedback/keys';
import { RpcError } from '@feedback/messaging';
import { ApiError } from '../http/api-error.js';
import type { KeyUsageRecorder } from './key-usage-recorder.js';
import type { ApiKeyIdentity, SecretKeyVerifier } from './secret-key-verifier.js';

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

const INVALID = 'The secret key is not valid. Copy it again from the dashboard (Settings -> API keys).';

/** The well-formed secret key a request carries as its bearer token, if any. */
export function bearerSecretKey(request: Request): string | undefined {
  return carriedKey(request)?.key;
}

/** Each request's key and its hash, worked out once: the failed-authentication limit asks too. */
const carriedKeys = new WeakMap<Request, { key: string; hash: string } | null>();

function carriedKey(request: Request): { key: string; hash: string } | undefined {
  let carried = carriedKeys.get(request);
  if (carried === undefined) {
    const key = /^Bearer\s+(\S+)$/i.exec(request.get('authorization') ?? '')?.[1];
    carried = key && isWellFormedSecretKey(key) ? { key, hash: hashSecretKey(key) } : null;
    carriedKeys.set(request, carried);
  }
  return carried ?? undefined;
}

/**
 * Keys (by hash) the authority recognised on this instance lately: ones that authenticated, and
 * revoked ones. What the failed-authentication limiter neither blocks nor counts: a working
 * integration, or one still sending a key that has been revoked, is not guessing. Each answer
 * keeps a key for `ttlMs` more; at most `maxEntries`, the least recently used going first. Being
 * here never authenticates anything: the key is still verified.
 */
export class RecognisedKeys {
  private readonly until = new Map<string, number>();

  constructor(private readonly options: { ttlMs?: number; maxEntries?: number } = {}) {}

  note(keyHash: string): void {
    this.until.delete(keyHash);
    this.until.set(keyHash, Date.now() + (this.options.ttlMs ?? 10 * 60_000));
    if (this.until.size > (this.options.maxEntries ?? 10_000)) this.until.delete(this.until.keys().next().value!);
  }

  /** Whether the request carries one of these keys. */
  readonly carriedBy = (request: Request): boolean => {
    const carried = carriedKey(request);
    return carried !== undefined && (this.until.get(carried.hash) ?? 0) > Date.now();
  };
}

/**
 * Authenticates `Authorization: Bearer sk_live_…`. A malformed key is refused by its checksum
 * without asking anyone; a well-formed one is resolved by its hash (cached, see
 * SecretKeyVerifier). Neither the key nor its hash ever reaches a response or a log line.
 */
export function secretKeyAuth(verifier: SecretKeyVerifier, usage: KeyUsageRecorder, recognised: RecognisedKeys): RequestHandler {
  return async (request, _response, next) => {
    try {
      if (!request.get('authorization')) throw unauthorized('missing_api_key', 'Send your secret key as "Authorization: Bearer sk_live_…".');
      const carried = carriedKey(request);
      if (!carried) throw unauthorized('invalid_api_key', INVALID);
      const keyHash = carried.hash;
      let identity: ApiKeyIdentity;
      try {
        identity = await verifier.verify(keyHash);
      } catch (error) {
        if (error instanceof RpcError && error.code === 'unknown_key') throw unauthorized('invalid_api_key', INVALID);
        if (error instanceof RpcError && error.code === 'revoked_key') {
          recognised.note(keyHash);
          throw unauthorized('revoked_api_key', 'This secret key has been revoked. A team Owner or Admin can restore it in the dashboard (Settings -> API keys).');
        }
        throw error;
      }
      if (identity.plan === 'free') {
        throw new ApiError('plan_upgrade_required', 'The REST API is not included in the Free plan. Upgrade to Starter or Pro.');
      }
      usage.record(identity.key_id);
      recognised.note(keyHash);
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
