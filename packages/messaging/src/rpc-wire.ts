/** What RPC callers and servers agree on: the reply address, the time headers, the lanes and the timing metric. */
import { Histogram } from 'prom-client';
import type { Registry } from 'prom-client';
import { rpcMethods } from '@feedback/contracts';
import type { RpcMethod } from '@feedback/contracts';
import { metricOnce } from './metric-once.js';
import type { RpcLane } from './topology.js';

export const DIRECT_REPLY_TO = 'amq.rabbitmq.reply-to';
/** What RabbitMQ turns a caller's `amq.rabbitmq.reply-to` into on the way: its reply address. */
export const DIRECT_REPLY_TO_ADDRESS = `${DIRECT_REPLY_TO}.`;

/**
 * Our headers on a request: how long its caller waits for the answer (milliseconds), and when it
 * sent it (milliseconds since the epoch), so the handler can take off the time the request spent
 * on its way, as far as the two hosts' clocks agree.
 */
export const TIME_LIMIT_HEADER = 'x-feedback-time-limit-ms';
export const SENT_AT_HEADER = 'x-feedback-sent-at';

/** The service that answers a method: the part of its name before the dot. */
export function serviceOf(method: string): string {
  return method.slice(0, method.indexOf('.'));
}

/** The queue lane a method's requests wait in (see `rpcMethods`). */
export function laneOf(method: RpcMethod): RpcLane {
  const contract = rpcMethods[method];
  return 'lane' in contract && contract.lane === 'hot' ? 'hot' : 'commands';
}

const RPC_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** How long RPC takes, by method and outcome (`ok`, the error code, or `timeout` for a caller). */
export function rpcDuration(registry: Registry, side: 'served' | 'call'): Histogram<'method' | 'outcome'> {
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
