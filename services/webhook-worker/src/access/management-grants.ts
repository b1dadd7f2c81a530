import { createLocalJWKSet, errors as joseErrors, jwtVerify } from 'jose';
import type { JSONWebKeySet } from 'jose';
import type { RpcHandlers } from '@feedback/messaging';
import { RpcError } from '@feedback/messaging';

/** What a command says of the app it acts on, with the authority's grant for it. */
interface Owner {
  team_id: string;
  app_id: number;
  plan: string;
  grant: string;
}

/** The authority's public keys, fetched over RPC and fetched again when a grant names another (a rotation), or once they are old. */
export class AuthorityKeys {
  private keySet: ReturnType<typeof createLocalJWKSet> | undefined;
  private fetchedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly fetch: () => Promise<JSONWebKeySet>,
    /** How long fetched keys are used before they are fetched again. Default: 600000 (ten minutes). */
    private readonly maxAgeMs = 600_000,
    /** Milliseconds since the epoch. Default: the system clock. */
    private readonly now: () => number = Date.now,
  ) {}

  async get(unknownKey = false): Promise<ReturnType<typeof createLocalJWKSet>> {
    const age = this.now() - this.fetchedAt;
    // A grant naming a key we do not have refreshes, but at most every 30 s: forged ones cannot make us ask for ever.
    if (!this.keySet || age > this.maxAgeMs || (unknownKey && age > 30_000)) {
      this.keySet = createLocalJWKSet(await this.fetch());
      this.fetchedAt = this.now();
    }
    return this.keySet;
  }
}

function notGranted(): RpcError {
  return new RpcError('grant_invalid', 'This command carries no valid grant from the authority; nothing was done.');
}

/**
 * Checks a command's grant: signed by the authority for the webhook worker, not expired, and for
 * the very app, team and plan the command names (and the public key a Send test puts in its ping).
 * A command without one, or with one for another app, is refused: the api's word alone does not
 * make anyone the owner of an endpoint.
 */
export async function verifyGrant(keys: AuthorityKeys, owner: Owner, publicKey?: string): Promise<void> {
  const verify = async (unknownKey: boolean) =>
    jwtVerify(owner.grant, await keys.get(unknownKey), { issuer: 'authority', audience: 'webhook-worker', algorithms: ['EdDSA'], requiredClaims: ['exp'] });
  let payload;
  try {
    payload = (await verify(false)).payload;
  } catch (error) {
    if (!(error instanceof joseErrors.JWKSNoMatchingKey)) throw notGranted();
    payload = (await verify(true).catch(() => Promise.reject(notGranted()))).payload;
  }
  const matches =
    payload['team_id'] === owner.team_id &&
    payload['app_id'] === owner.app_id &&
    payload['plan'] === owner.plan &&
    (publicKey === undefined || payload['public_key'] === publicKey);
  if (!matches) throw notGranted();
}

/**
 * The handlers of commands made for an endpoint owner, each answering only once its grant is
 * verified. The authority's own calls (a team's endpoint count) carry no owner, and pass as they are.
 */
export function requiringGrants(keys: AuthorityKeys, handlers: RpcHandlers): RpcHandlers {
  const guarded: Record<string, unknown> = {};
  for (const [method, handler] of Object.entries(handlers) as Array<[string, (request: unknown, call: unknown) => Promise<unknown>]>) {
    guarded[method] = async (request: { owner?: Owner; public_key?: string }, call: unknown) => {
      if (request.owner) await verifyGrant(keys, request.owner, request.public_key);
      return handler(request, call);
    };
  }
  return guarded as RpcHandlers;
}
