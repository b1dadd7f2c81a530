import type { ConfirmChannel, ConsumeMessage } from 'amqplib';
import type { Registry } from 'prom-client';
import { ContractViolation, rpcMethods } from '@feedback/contracts';
import type { RpcMethod, RpcReply, RpcRequest, RpcResult } from '@feedback/contracts';
import type { Logger } from '@feedback/logging';
import type { Broker } from './broker.js';
import { consumeQueue } from './consumer.js';
import type { Consumer } from './consumer.js';
import { RpcError } from './rpc-errors.js';
import { DIRECT_REPLY_TO_ADDRESS, SENT_AT_HEADER, TIME_LIMIT_HEADER, laneOf, rpcDuration } from './rpc-wire.js';
import { QUORUM_QUEUE } from './topology.js';
import type { RpcLane, TopologyNames } from './topology.js';

/** Kept back by `throwIfCallerGone` for what follows it: the commit, and the answer's way back. */
const ANSWER_ALLOWANCE_MS = 250;

/** What a handler knows of the call it answers. */
export interface RpcCall {
  /** Milliseconds until the caller stops waiting (Infinity if it did not say). */
  remainingMs(): number;
  /**
   * Throws unless the caller will still be waiting after `stillNeededMs` more (the work the
   * handler has left after this point) and the commit and answer that follow. For a handler to
   * call just before it commits a change whose answer only the caller can use (a secret shown
   * once): a caller that gave up has told its user the request failed, and the user would press
   * again.
   */
  throwIfCallerGone(stillNeededMs?: number): void;
}

export type RpcHandlers = { [M in RpcMethod]?: (request: RpcRequest<M>, call: RpcCall) => Promise<RpcResult<M>> };

/**
 * The caller's time limit, counted from now less the time the request took to get here. That
 * time is read off the two hosts' clocks; one that cannot be right (negative, or longer than the
 * limit, which the queue's expiration does not let a request wait) means the clocks disagree, and
 * the whole limit counts from now instead.
 */
function rpcCall(message: ConsumeMessage): RpcCall {
  const headers = message.properties.headers ?? {};
  const limit: unknown = headers[TIME_LIMIT_HEADER];
  const sentAt: unknown = headers[SENT_AT_HEADER];
  let deadline = Infinity;
  if (typeof limit === 'number' && limit >= 0) {
    const travelled = typeof sentAt === 'number' ? Date.now() - sentAt : NaN;
    deadline = performance.now() + limit - (travelled >= 0 && travelled <= limit ? travelled : 0);
  }
  const remainingMs = () => deadline - performance.now();
  return {
    remainingMs,
    throwIfCallerGone(stillNeededMs = 0) {
      if (remainingMs() <= stillNeededMs + ANSWER_ALLOWANCE_MS) {
        throw new RpcError('service_unavailable', 'The request could not finish before its caller stops waiting, so nothing was changed. Retry shortly.');
      }
    },
  };
}

/** Declares the RPC exchange and a service's queue for one lane, bound to it by the queue's name. */
async function declareRpcQueue(channel: ConfirmChannel, names: TopologyNames, queue: string): Promise<void> {
  await channel.assertExchange(names.rpcExchange, 'topic', { durable: true });
  await channel.assertQueue(queue, QUORUM_QUEUE);
  await channel.bindQueue(queue, names.rpcExchange, queue);
}

export type RpcServer = Consumer;

/**
 * Answers RPC for one service on the queue of one lane. Requests carry the method in the AMQP
 * `type` property; both request and result are validated against the method's contract. A service
 * with methods in both lanes serves each lane apart, with its own consumer and prefetch, so that
 * a backlog of slow commands never delays a hot call.
 */
export function serveRpc(
  broker: Broker,
  logger: Logger,
  options: {
    service: string;
    names: TopologyNames;
    handlers: RpcHandlers;
    /** Which of the service's queues: every handler given must be of this lane. Default: `commands`. */
    lane?: RpcLane;
    /**
     * Hot-lane methods also answered on the commands queue, for callers of a release before the
     * lanes, which send every request there. Default: none.
     */
    olderCallers?: RpcHandlers;
    /** Requests handled at once. Default: 20. */
    prefetch?: number;
    /** Where answer times go, by method and outcome. */
    metrics?: Registry;
  },
): RpcServer {
  const lane = options.lane ?? 'commands';
  const queue = options.names.rpcQueue(options.service, lane);
  const strays = Object.keys(options.handlers).filter((method) => laneOf(method as RpcMethod) !== lane);
  if (strays.length > 0) throw new Error(`${strays.join(', ')} ${strays.length === 1 ? 'is' : 'are'} not of the ${lane} lane`);
  const handlers: RpcHandlers = lane === 'commands' ? { ...options.olderCallers, ...options.handlers } : options.handlers;
  const duration = options.metrics && rpcDuration(options.metrics, 'served');
  const answer = async (channel: ConfirmChannel, message: ConsumeMessage): Promise<void> => {
    const started = process.hrtime.bigint();
    const method = message.properties.type as string;
    const log = logger.child({ rpc: method, correlationId: message.properties.correlationId });
    const call = rpcCall(message);
    let reply: RpcReply;
    try {
      const contract = rpcMethods[method as RpcMethod];
      const handler = handlers[method as RpcMethod] as ((request: unknown, call: RpcCall) => Promise<unknown>) | undefined;
      if (!contract || !handler) throw new RpcError('unknown_method', `${method} is not served by ${options.service}`);
      if (message.fields.redelivered && 'atMostOnce' in contract && contract.atMostOnce) {
        // Given before to a server whose connection was lost, perhaps after it did the work: the
        // caller was not answered, and is told so rather than have the work done twice.
        log.warn('rpc request given again after a lost connection; not run again', { method });
        throw new RpcError('service_unavailable', 'The service lost its connection while handling this request, which may have been done; it was not done again. Check before retrying.');
      }
      const request = contract.request.parse(JSON.parse(message.content.toString('utf8')));
      const result = contract.result.parse(await handler(request, call));
      reply = { ok: true, result };
    } catch (error) {
      if (error instanceof RpcError) {
        reply = { ok: false, error: { code: error.code, message: error.message } };
      } else if (error instanceof ContractViolation && error.contract === rpcMethods[method as RpcMethod]?.result.name) {
        // This service's own answer broke its contract: a bug here, not the caller's request.
        log.error('rpc result broke its contract', { violations: error.violations, contract: error.contract });
        reply = { ok: false, error: { code: 'internal_error', message: 'The service failed to answer.' } };
      } else if (error instanceof ContractViolation) {
        log.error('rpc contract broken', { violations: error.violations, contract: error.contract });
        reply = { ok: false, error: { code: 'contract_violation', message: error.message } };
      } else {
        log.error('rpc handler failed', { error });
        reply = { ok: false, error: { code: 'internal_error', message: 'The service failed to answer.' } };
      }
    }
    // A method this service does not serve is one series, not one per name a caller sent.
    const known = Object.hasOwn(handlers, method);
    duration?.observe({ method: known ? method : 'unknown', outcome: reply.ok ? 'ok' : reply.error.code }, Number(process.hrtime.bigint() - started) / 1e9);
    try {
      // Answers go to the caller's direct reply-to address only. Any other name would have this
      // service write through the default exchange into a queue the caller may not write to.
      const replyTo = message.properties.replyTo as string | undefined;
      if (replyTo?.startsWith(DIRECT_REPLY_TO_ADDRESS)) {
        channel.sendToQueue(replyTo, Buffer.from(JSON.stringify(reply)), {
          correlationId: message.properties.correlationId as string,
          contentType: 'application/json',
        });
      }
      channel.ack(message);
    } catch {
      // Channel closed meanwhile: the caller times out or the request is redelivered.
    }
  };

  return consumeQueue(broker, logger, {
    queue,
    // A quorum queue like every other: on a cluster it outlives the node it was on, so key
    // checks and dashboard commands go on. Requests carry an expiration, which quorum queues
    // honour from RabbitMQ 3.10 on.
    setup: (channel) => declareRpcQueue(channel, options.names, queue),
    prefetch: options.prefetch ?? 20,
    onMessage: answer,
    // Handed back, a request would reach the next server marked as given before: refused if
    // at-most-once, though it never ran.
    whileStopping: 'handle',
  });
}
