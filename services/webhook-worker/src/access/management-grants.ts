import { AuthorityKeysUnavailable } from '@feedback/authority-keys';
import type { AuthorityKeys } from '@feedback/authority-keys';
import type { RpcHandlers } from '@feedback/messaging';
import { RpcError } from '@feedback/messaging';

/** What a command says of the app it acts on, with the authority's grant for it. */
interface Owner {
  team_id: string;
  app_id: number;
  plan: string;
  plan_version: number;
  grant: string;
}

function notGranted(): RpcError {
  return new RpcError('grant_invalid', 'This command carries no valid grant from the authority; nothing was done.');
}

/**
 * Checks a command's grant: signed by the authority for the webhook worker, not expired, and for
 * the very app, team, plan and plan version the command names (and the public key a Send test
 * puts in its ping).
 * A command without one, or with one for another app, is refused: the api's word alone does not
 * make anyone the owner of an endpoint.
 */
export async function verifyGrant(keys: AuthorityKeys, owner: Owner, publicKey?: string): Promise<void> {
  const payload = await keys.verify(owner.grant, { issuer: 'authority', audience: 'webhook-worker', algorithms: ['EdDSA'], requiredClaims: ['exp'] }).catch((error: unknown) => {
    // Keys the authority could not give are a reason to retry, not a grant refused.
    if (error instanceof AuthorityKeysUnavailable) throw new RpcError('service_unavailable', 'The authority\'s keys could not be fetched; nothing was done. Retry shortly.');
    throw notGranted();
  });
  const matches =
    payload['team_id'] === owner.team_id &&
    payload['app_id'] === owner.app_id &&
    payload['plan'] === owner.plan &&
    payload['plan_version'] === owner.plan_version &&
    (publicKey === undefined || payload['public_key'] === publicKey);
  if (!matches) throw notGranted();
}

/**
 * The handlers, each answering only once its grant is verified. A request without an owner is
 * refused, so a method added later cannot forget its check: every caller of the worker holds a grant.
 */
export function requiringGrants(keys: AuthorityKeys, handlers: RpcHandlers): RpcHandlers {
  const guarded: Record<string, unknown> = {};
  for (const [method, handler] of Object.entries(handlers) as Array<[string, (request: unknown, call: unknown) => Promise<unknown>]>) {
    guarded[method] = async (request: { owner?: Owner; public_key?: string }, call: unknown) => {
      if (!request.owner) throw notGranted();
      await verifyGrant(keys, request.owner, request.public_key);
      return handler(request, call);
    };
  }
  return guarded as RpcHandlers;
}
