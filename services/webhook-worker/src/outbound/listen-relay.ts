import { randomUUID } from 'node:crypto';
import type { ConsumeMessage } from 'amqplib';
import type { Logger } from '@feedback/logging';
import type { Broker, ChannelWrapper } from '@feedback/messaging';
import type { SendResult } from './webhook-sender.js';

/** A `listen` session's endpoint URL: the scheme, then its queue. Never dialled. */
export const LISTEN_URL_PREFIX = 'listen:';

/** The answer the api relays from the tool: the local receiver's status, or why none came. */
interface RelayedAnswer {
  status?: number;
  error?: string;
  body_start?: string;
}

interface Pending {
  resolve(result: Omit<SendResult, 'durationMs'>): void;
  timer: NodeJS.Timeout;
}

const BODY_START_CHARACTERS = 1024;

export interface ListenRelayOptions {
  broker: Broker;
  logger: Logger;
  /**
   * The direct exchange the api answers through, to this relay's own queue: its login may not
   * write to the default exchange, so direct reply-to is not open to it.
   */
  replies: string;
  /** Whole-request time limit, as for an HTTP endpoint. Default: 10000. */
  timeoutMs?: number;
  /** Told when a session's queue is gone: the api instance holding it closed it, or died. */
  onSessionGone?: (queue: string) => void;
}

/**
 * Sends a `listen` session's requests: to the session's broker queue, where the api instance
 * holding the tool's connection takes them, and waits for the tool's answer (its local
 * receiver's status) as it would for an endpoint's. Nothing is dialled: the tool forwards to the
 * developer's local address on the developer's machine, never from the service's network.
 */
export class ListenRelay {
  private readonly pending = new Map<string, Pending>();
  private readonly channel: ChannelWrapper;
  private readonly timeoutMs: number;
  /** This relay's answer queue, named by the server anew at each setup. */
  private answers: string | undefined;

  constructor(private readonly options: ListenRelayOptions) {
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.channel = options.broker.channel('listen-relay', async (channel) => {
      // Requests are mandatory: one whose queue is gone comes back at once.
      channel.on('return', (message: ConsumeMessage) => this.onReturned(message));
      await channel.assertExchange(options.replies, 'direct', { durable: true });
      const { queue } = await channel.assertQueue('', { exclusive: true, autoDelete: true });
      await channel.bindQueue(queue, options.replies, queue);
      await channel.consume(queue, (message) => message && this.onAnswer(message), { noAck: true });
      this.answers = queue;
    });
  }

  private settle(correlationId: string, result: Omit<SendResult, 'durationMs'>): void {
    const pending = this.pending.get(correlationId);
    if (!pending) return;
    this.pending.delete(correlationId);
    clearTimeout(pending.timer);
    pending.resolve(result);
  }

  private onReturned(message: ConsumeMessage): void {
    this.options.onSessionGone?.(message.fields.routingKey);
    this.settle(String(message.properties.correlationId), { error: 'ELISTENENDED: the listen session has ended' });
  }

  private onAnswer(message: ConsumeMessage): void {
    let answer: RelayedAnswer;
    try {
      answer = JSON.parse(message.content.toString('utf8')) as RelayedAnswer;
    } catch {
      answer = { error: 'the listen session answered something unreadable' };
    }
    const status = Number.isInteger(answer.status) && answer.status! >= 100 && answer.status! <= 599 ? answer.status : undefined;
    const bodyStart = typeof answer.body_start === 'string' ? answer.body_start.slice(0, BODY_START_CHARACTERS) : undefined;
    const error = typeof answer.error === 'string' ? answer.error.slice(0, 500) : undefined;
    this.settle(String(message.properties.correlationId), {
      ...(status !== undefined ? { status } : {}),
      ...(bodyStart !== undefined ? { bodyStart } : {}),
      ...(error !== undefined || status === undefined ? { error: error ?? 'no answer from the local receiver' } : {}),
    });
  }

  /** Sends one request to the session's queue; resolves with the tool's answer, or a failure. */
  async send(queue: string, rawBody: string, headers: Record<string, string>): Promise<SendResult> {
    const started = performance.now();
    const correlationId = randomUUID();
    const answered = new Promise<Omit<SendResult, 'durationMs'>>((resolve) => {
      const timer = setTimeout(() => this.settle(correlationId, { error: `ETIMEDOUT: no complete answer within ${this.timeoutMs} ms` }), this.timeoutMs);
      this.pending.set(correlationId, { resolve, timer });
    });
    // The answer queue exists once the channel is set up; a request sent before waits for it.
    (this.answers === undefined ? this.channel.waitForConnect() : Promise.resolve())
      .then(() =>
        this.channel.publish('', queue, Buffer.from(JSON.stringify({ headers, body: rawBody })), {
          correlationId,
          replyTo: this.answers,
        contentType: 'application/json',
        // Past the time limit nobody waits for the answer: the request is dropped, not sent late.
        expiration: String(this.timeoutMs),
          mandatory: true,
          timeout: this.timeoutMs,
        }),
      )
      .catch((error: unknown) => this.settle(correlationId, { error: `the listen session could not be reached: ${(error as Error).message}` }));
    const result = await answered;
    return { ...result, durationMs: Math.round(performance.now() - started) };
  }

  async close(): Promise<void> {
    for (const [id] of this.pending) this.settle(id, { error: 'the worker is stopping' });
    await this.channel.close();
  }
}

/** Sends to an HTTPS endpoint, or to a `listen` session, by the endpoint's URL. */
export interface Sender {
  send(url: string, rawBody: string, headers: Record<string, string>): Promise<SendResult>;
}

export function routingSender(http: Sender, listen: ListenRelay): Sender {
  return {
    send: (url, rawBody, headers) => (url.startsWith(LISTEN_URL_PREFIX) ? listen.send(url.slice(LISTEN_URL_PREFIX.length), rawBody, headers) : http.send(url, rawBody, headers)),
  };
}
