import { randomUUID } from 'node:crypto';
import type { ChannelWrapper } from 'amqp-connection-manager';
import { Histogram } from 'prom-client';
import type { Registry } from 'prom-client';
import type { ConfirmChannel, ConsumeMessage } from 'amqplib';
import { ContractViolation, rpcMethods, rpcReplyContract } from '@feedback/contracts';
import type { RpcMethod, RpcReply, RpcRequest, RpcResult } from '@feedback/contracts';
import type { Logger } from '@feedback/logging';
import type { Broker } from './broker.js';
import { metricOnce } from './metric-once.js';
import { consumeQueue } from './consumer.js';
import type { Consumer } from './consumer.js';
import { QUORUM_QUEUE } from './topology.js';
import type { RpcLane, TopologyNames } from './topology.js';

/** The message of a reply the caller's contract refuses: the answering side's fault. */
const UNREADABLE_REPLY = 'The service answered in a form this caller does not accept.';

/** An expected failure of an RPC method, with a stable code the caller can branch on. */
export class RpcError extends Error {
  override readonly name = 'RpcError';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** No reply within the time limit: the answering service is down, slow, or unreachable. */
export class RpcTimeoutError extends Error {
  override readonly name: string = 'RpcTimeoutError';
  readonly code = 'rpc_timeout';
  constructor(method: string, timeoutMs: number) {
    super(`${method} did not answer within ${timeoutMs} ms`);
  }
}

/**
 * No queue took the request: the answering service has not declared its queue on this broker
 * (it has not started yet, or is not deployed). Known at once, from the broker's return, rather
 * than at the call's time limit; a kind of timeout to callers, who answer both alike.
 */
export class RpcNoServiceError extends RpcTimeoutError {
  override readonly name = 'RpcNoServiceError';
  constructor(method: string, queue: string) {
    super(method, 0);
    this.message = `${method}: no service takes its requests yet (the queue ${queue} does not exist)`;
  }
}

/**
 * The client closed (its process is stopping) before the answer came: the call ends now rather
 * than never. A kind of timeout to callers, who answer both alike.
 */
export class RpcClientClosedError extends RpcTimeoutError {
  override readonly name = 'RpcClientClosedError';
  constructor(method: string) {
    super(method, 0);
    this.message = `${method}: no answer before this caller closed its RPC client`;
  }
}

const DIRECT_REPLY_TO = 'amq.rabbitmq.reply-to';
/** What RabbitMQ turns a caller's `amq.rabbitmq.reply-to` into on the way: its reply address. */
const DIRECT_REPLY_TO_ADDRESS = `${DIRECT_REPLY_TO}.`;

/**
 * Our headers on a request: how long its caller waits for the answer (milliseconds), and when it
 * sent it (milliseconds since the epoch), so the handler can take off the time the request spent
 * on its way, as far as the two hosts' clocks agree.
 */
const TIME_LIMIT_HEADER = 'x-feedback-time-limit-ms';
const SENT_AT_HEADER = 'x-feedback-sent-at';

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

function serviceOf(method: string): string {
  return method.slice(0, method.indexOf('.'));
}

/** The queue lane a method's requests wait in (see `rpcMethods`). */
export function laneOf(method: RpcMethod): RpcLane {
  const contract = rpcMethods[method];
  return 'lane' in contract && contract.lane === 'hot' ? 'hot' : 'commands';
}

/** Declares the RPC exchange and a service's queue for one lane, bound to it by the queue's name. */
async function declareRpcQueue(channel: ConfirmChannel, names: TopologyNames, queue: string): Promise<void> {
  await channel.assertExchange(names.rpcExchange, 'topic', { durable: true });
  await channel.assertQueue(queue, QUORUM_QUEUE);
  await channel.bindQueue(queue, names.rpcExchange, queue);
}

export type RpcServer = Consumer;

const RPC_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** How long RPC takes, by method and outcome (`ok`, the error code, or `timeout` for a caller). */
function rpcDuration(registry: Registry, side: 'served' | 'call'): Histogram<'method' | 'outcome'> {
  const name = side === 'served' ? 'feedback_rpc_served_duration_seconds' : 'feedback_rpc_call_duration_seconds';
  return metricOnce(
    registry,
    name,
    () =>
      new Histogram({
        name,
        help:
          side === 'served'
            ? 'Time to answer an RPC request, by method and outcome (ok, or the error code answered)'
            : 'Time an RPC call took, by method and outcome (ok, the error code answered, or timeout: no answer in time)',
        labelNames: ['method', 'outcome'],
        buckets: RPC_BUCKETS,
        registers: [registry],
      }),
  );
}

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

interface Pending {
  method: string;
  resolve(reply: RpcReply): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

/** Calls other services' RPC methods over direct reply-to, each call bounded by a timeout. */
export class RpcClient {
  private readonly pending = new Map<string, Pending>();
  private readonly channel: ChannelWrapper;
  private readonly duration: Histogram<'method' | 'outcome'> | undefined;

  constructor(
    broker: Broker,
    private readonly logger: Logger,
    private readonly options: {
      names: TopologyNames;
      /** Default time limit of a call. Default: 5000. */
      timeoutMs?: number;
      /** Where call times go, by method and outcome. */
      metrics?: Registry;
    },
  ) {
    this.duration = options.metrics && rpcDuration(options.metrics, 'call');
    // Direct reply-to needs the reply consumer on the very channel that publishes.
    this.channel = broker.channel('rpc-client', async (channel) => {
      // Requests are mandatory: one no queue takes comes back at once.
      channel.on('return', (message: ConsumeMessage) => this.onReturned(message));
      await channel.assertExchange(options.names.rpcExchange, 'topic', { durable: true });
      await channel.consume(DIRECT_REPLY_TO, (message) => message && this.onReply(message), { noAck: true });
    });
  }

  private onReturned(message: ConsumeMessage): void {
    const correlationId = message.properties.correlationId as string;
    const pending = this.pending.get(correlationId);
    if (!pending) return;
    this.pending.delete(correlationId);
    clearTimeout(pending.timer);
    pending.reject(new RpcNoServiceError(String(message.properties.type), message.fields.routingKey));
  }

  private onReply(message: ConsumeMessage): void {
    const pending = this.pending.get(message.properties.correlationId as string);
    if (!pending) return; // the call timed out already
    this.pending.delete(message.properties.correlationId as string);
    clearTimeout(pending.timer);
    try {
      pending.resolve(rpcReplyContract.parse(JSON.parse(message.content.toString('utf8'))));
    } catch (error) {
      // The answering service's fault, not the caller's request: not `contract_violation`.
      this.logger.error('rpc reply broke its contract', { error });
      pending.resolve({ ok: false, error: { code: 'internal_error', message: UNREADABLE_REPLY } });
    }
  }

  /** Resolves with the method's result, or rejects with RpcError (its code) or RpcTimeoutError. */
  async call<M extends RpcMethod>(method: M, request: RpcRequest<M>, options: { timeoutMs?: number } = {}): Promise<RpcResult<M>> {
    const timeoutMs = options.timeoutMs ?? this.options.timeoutMs ?? 5000;
    rpcMethods[method].request.parse(request); // a bad request fails here, naming the field
    const timer = this.duration?.startTimer({ method });
    const correlationId = randomUUID();
    const reply = new Promise<RpcReply>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(correlationId);
        reject(new RpcTimeoutError(method, timeoutMs));
      }, timeoutMs);
      this.pending.set(correlationId, { method, resolve, reject, timer });
    });
    this.channel
      .publish(this.options.names.rpcExchange, this.options.names.rpcQueue(serviceOf(method), laneOf(method)), Buffer.from(JSON.stringify(request)), {
        correlationId,
        replyTo: DIRECT_REPLY_TO,
        type: method,
        contentType: 'application/json',
        // A request nobody picked up in time is dropped, never answered late.
        expiration: String(timeoutMs),
        mandatory: true,
        // For the handler, which may still be working when this caller gives up (RpcCall).
        headers: { [TIME_LIMIT_HEADER]: timeoutMs, [SENT_AT_HEADER]: Date.now() },
        timeout: timeoutMs,
      })
      .catch(() => undefined); // a publish that fails surfaces as the call's timeout
    let outcome: RpcReply;
    try {
      outcome = await reply;
    } catch (error) {
      timer?.({ outcome: error instanceof RpcNoServiceError ? 'no_service' : 'timeout' });
      throw error;
    }
    timer?.({ outcome: outcome.ok ? 'ok' : outcome.error.code });
    if (!outcome.ok) throw new RpcError(outcome.error.code, outcome.error.message);
    try {
      return rpcMethods[method].result.parse(outcome.result) as RpcResult<M>;
    } catch (error) {
      if (!(error instanceof ContractViolation)) throw error;
      // An answer this caller's contract refuses (the services' versions apart): a failure on our
      // side, which callers must not report as the client's bad request.
      this.logger.error('rpc result broke its contract', { violations: error.violations, contract: error.contract });
      throw new RpcError('internal_error', UNREADABLE_REPLY);
    }
  }

  async close(): Promise<void> {
    for (const [id, pending] of this.pending) {
      clearTimeout(pending.timer);
      this.pending.delete(id);
      pending.reject(new RpcClientClosedError(pending.method));
    }
    await this.channel.close();
  }
}
