import type { ChannelWrapper } from 'amqp-connection-manager';
import { Counter } from 'prom-client';
import type { Registry } from 'prom-client';
import type { ConfirmChannel, ConsumeMessage } from 'amqplib';
import { ContractViolation } from '@feedback/contracts';
import type { Contract } from '@feedback/contracts';
import type { Logger } from '@feedback/logging';
import type { Broker, ChannelSetup } from './broker.js';
import { metricOnce } from './metric-once.js';

/** Thrown by a handler when retrying cannot help: the message is rejected, not requeued. */
export class PermanentFailure extends Error {
  override readonly name = 'PermanentFailure';
}

/** Deliveries of one message after which its failures are logged as errors, not warnings. */
const REPEATED_FAILURES = 10;

export interface ConsumerOptions<T> {
  queue: string;
  /** Declares the queue and its bindings; runs on every reconnect before consuming. */
  setup?: ChannelSetup;
  /** Unacknowledged messages this consumer holds at once: its concurrency. Default: 10. */
  prefetch?: number;
  /** Validates and types each body; a message that breaks it is rejected. */
  contract: Contract<T>;
  /** Resolves to acknowledge. Throwing PermanentFailure rejects; any other error requeues. */
  handle(body: T, message: ConsumeMessage): Promise<void>;
  /** Pause before requeueing after a handler error, so a failing dependency is not hammered. Default: 1000. */
  requeueDelayMs?: number;
  /** Where messages are counted by queue and outcome (ack, requeue, reject). */
  metrics?: Registry;
}

/**
 * One counter per registry for every consumer of a service: a requeue count that keeps rising is a
 * message that keeps failing (or a dependency away); rejects are messages dropped as broken.
 */
function handledCounter(registry: Registry): Counter<'queue' | 'outcome'> {
  const name = 'feedback_messages_handled_total';
  return metricOnce(
    registry,
    name,
    () =>
      new Counter({
        name,
        help: 'Messages consumed, by queue and outcome: ack (handled), requeue (handler failed; delivered again), reject (broke its contract, or cannot succeed)',
        labelNames: ['queue', 'outcome'],
        registers: [registry],
      }),
  );
}

export interface Consumer {
  /** Stops taking messages, waits for those in flight, then closes the channel. */
  stop(): Promise<void>;
}

/**
 * The consuming loop both consumers and RPC servers stand on: declares and consumes `queue` on a
 * channel whose setup runs again after every reconnect, tracks messages in flight, and on
 * `stop()` cancels, waits for them, and closes.
 */
export function consumeQueue(
  broker: Broker,
  logger: Logger,
  options: {
    queue: string;
    setup?: ChannelSetup;
    prefetch: number;
    onMessage(channel: ConfirmChannel, message: ConsumeMessage): Promise<void>;
    /**
     * What to do with a message given as stop() began, before its cancel reached the broker:
     * `return` it to the queue at once (the default: for a consumer that is staying, rather than
     * started and cut short by the channel's close), or `handle` it like the others, which stop()
     * waits for (RPC requests: short, and one given back comes to the next server marked as given
     * before).
     */
    whileStopping?: 'return' | 'handle';
  },
): Consumer {
  const inFlight = new Set<Promise<void>>();
  let current: { channel: ConfirmChannel; consumerTag: string } | undefined;
  let stopping = false;

  /**
   * The broker cancelled the consumer (its queue was deleted, say). amqplib leaves the channel
   * open, so nothing would consume again and readiness would still say ready. Once the messages
   * in hand are settled, the channel is closed: the broker then counts it broken (not ready) and
   * sets it up again, declaring the queue anew.
   */
  const resumeAfterCancel = async (channel: ConfirmChannel) => {
    logger.warn('the broker cancelled this consumer; setting it up again', { queue: options.queue });
    await Promise.allSettled([...inFlight]);
    if (!stopping) await channel.close().catch(() => undefined);
  };

  const wrapper: ChannelWrapper = broker.channel(`consumer:${options.queue}`, async (channel) => {
    if (stopping) return;
    await options.setup?.(channel);
    await channel.prefetch(options.prefetch);
    const { consumerTag } = await channel.consume(options.queue, (message) => {
      if (message === null) {
        if (!stopping) void resumeAfterCancel(channel);
        return;
      }
      // Given as stop() began, before its cancel reached the broker (see whileStopping).
      if (stopping && options.whileStopping !== 'handle') {
        try {
          channel.nack(message, false, true);
        } catch {
          // The channel closed meanwhile; the broker gives the message again.
        }
        return;
      }
      const task = options.onMessage(channel, message).finally(() => inFlight.delete(task));
      inFlight.add(task);
    });
    current = { channel, consumerTag };
    // stop() came while this setup ran, and found nothing to cancel.
    if (stopping) await channel.cancel(consumerTag).catch(() => undefined);
  });

  return {
    async stop() {
      stopping = true;
      if (current) await current.channel.cancel(current.consumerTag).catch(() => undefined);
      await Promise.allSettled([...inFlight]);
      await wrapper.close();
    },
  };
}

/**
 * How many times a quorum queue has handed this message out, this time included. From RabbitMQ 4.3
 * a nack (how a failed message is put back) no longer counts in `x-delivery-count`, which then
 * counts only failures the broker saw (a consumer gone); `x-acquired-count`, new in 4.3, counts
 * every hand-out. Before 4.3 only `x-delivery-count` exists, and counts both.
 */
export function deliveriesSoFar(headers: Record<string, unknown> | undefined): number {
  const counted = (name: string) => {
    const value = Number(headers?.[name] ?? 0);
    return Number.isFinite(value) ? value : 0;
  };
  return Math.max(counted('x-delivery-count'), counted('x-acquired-count')) + 1;
}

export function startConsumer<T>(broker: Broker, logger: Logger, options: ConsumerOptions<T>): Consumer {
  const handled = options.metrics && handledCounter(options.metrics);
  // Every outcome's series exists from the start at 0, so an alert on `increase()` sees the first
  // rejected message after a restart (a series that first appears at 1 shows no increase).
  for (const outcome of ['ack', 'reject', 'requeue'] as const) handled?.inc({ queue: options.queue, outcome }, 0);
  // Acks go to the channel that delivered the message: after a reconnect its tags mean nothing.
  const settle = (channel: ConfirmChannel, message: ConsumeMessage, outcome: 'ack' | 'reject' | 'requeue') => {
    handled?.inc({ queue: options.queue, outcome });
    try {
      if (outcome === 'ack') channel.ack(message);
      else channel.nack(message, false, outcome === 'requeue');
    } catch {
      // The channel closed meanwhile; the broker redelivers the message.
    }
  };

  const handleOne = async (channel: ConfirmChannel, message: ConsumeMessage) => {
    // Made only when something is logged: the happy path has nothing to log here.
    const log = () => logger.child({ queue: options.queue, messageId: message.properties.messageId });
    let body: T;
    try {
      body = options.contract.parse(JSON.parse(message.content.toString('utf8')));
    } catch (error) {
      const detail = error instanceof ContractViolation ? error.violations : (error as Error).message;
      log().error('message rejected: it breaks its contract', { contract: options.contract.name, detail });
      settle(channel, message, 'reject');
      return;
    }
    try {
      await options.handle(body, message);
      settle(channel, message, 'ack');
    } catch (error) {
      if (error instanceof PermanentFailure) {
        log().error('message rejected by its handler', { error });
        settle(channel, message, 'reject');
        return;
      }
      // Quorum queues count deliveries: one that keeps failing is most likely a bug, not an outage,
      // and is logged as an error so that it reaches whoever is on call.
      const deliveries = deliveriesSoFar(message.properties.headers);
      if (deliveries >= REPEATED_FAILURES) log().error('handler keeps failing; message will be redelivered', { error, deliveries });
      else log().warn('handler failed; message will be redelivered', { error, deliveries });
      await new Promise((resolve) => setTimeout(resolve, options.requeueDelayMs ?? 1000));
      settle(channel, message, 'requeue');
    }
  };

  return consumeQueue(broker, logger, {
    queue: options.queue,
    setup: options.setup,
    prefetch: options.prefetch ?? 10,
    onMessage: handleOne,
  });
}
