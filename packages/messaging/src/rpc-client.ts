import { randomUUID } from 'node:crypto';
import type { ChannelWrapper } from 'amqp-connection-manager';
import type { Histogram, Registry } from 'prom-client';
import type { ConsumeMessage } from 'amqplib';
import { ContractViolation, rpcMethods, rpcReplyContract } from '@feedback/contracts';
import type { RpcMethod, RpcReply, RpcRequest, RpcResult } from '@feedback/contracts';
import type { Logger } from '@feedback/logging';
import type { Broker } from './broker.js';
import { RpcClientClosedError, RpcError, RpcNoServiceError, RpcTimeoutError } from './rpc-errors.js';
import { DIRECT_REPLY_TO, SENT_AT_HEADER, TIME_LIMIT_HEADER, laneOf, rpcDuration, serviceOf } from './rpc-wire.js';
import type { TopologyNames } from './topology.js';

/** The message of a reply the caller's contract refuses: the answering side's fault. */
const UNREADABLE_REPLY = 'The service answered in a form this caller does not accept.';

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
