import { authorityHotRpcMethods } from './authority-hot-rpc.js';
import { authorityRpcMethods } from './authority-rpc.js';
import { webhookWorkerRpcMethods } from './webhook-worker-rpc.js';

/**
 * Commands and queries between services travel as RPC over RabbitMQ. The method name says which
 * service answers it: "authority.verifySecretKey" goes to the authority's queue. Each method has
 * a request and a result contract, validated on receipt at both ends. Each service's methods are
 * in a file of its own; this table joins them for the callers.
 *
 * `lane: 'hot'` marks a call on the request path (key checks, lease renewals): it waits in a
 * queue of its own, so slow commands such as password hashing never hold it up. `atMostOnce`
 * marks a method that would do its work again if run twice: a second app, endpoint, member, test
 * event or attempt. A request the broker gives a second time, because the connection of the
 * server handling it was lost, is refused rather than run again (see serveRpc). The rest are
 * read-only, or repeat to the same end.
 */
export const rpcMethods = { ...authorityHotRpcMethods, ...authorityRpcMethods, ...webhookWorkerRpcMethods } as const;

export type RpcMethod = keyof typeof rpcMethods;
export type RpcRequest<M extends RpcMethod> = ReturnType<(typeof rpcMethods)[M]['request']['parse']>;
export type RpcResult<M extends RpcMethod> = ReturnType<(typeof rpcMethods)[M]['result']['parse']>;
