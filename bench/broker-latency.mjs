// The broker's own share of event-to-delivery latency: messages published with confirms to a
// durable quorum queue, as the relay publishes events to the worker's queue, in the latency
// phase's rhythm (a batch every 10 ms), and timed until a consumer on another connection gets
// them. Nothing else of ours runs, so what it prints is RabbitMQ on this machine.
//
//   node bench/broker-latency.mjs
//   BENCH_RATE=500 BENCH_SECONDS=10 BENCH_QUEUE_TYPE=classic node bench/broker-latency.mjs   (a classic queue, to compare)
import { randomBytes } from 'node:crypto';
import { percentile } from './percentile.mjs';

const { default: amqp } = await import(new URL('../packages/messaging/node_modules/amqplib/channel_api.js', import.meta.url).href);

const url = process.env.TEST_AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
const rate = Number(process.env.BENCH_RATE ?? 500);
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const queueType = process.env.BENCH_QUEUE_TYPE ?? 'quorum';
const perTick = Math.max(1, Math.round(rate / 100));
const ticks = seconds * 100;
const expected = ticks * perTick;
const queue = `bench-broker-latency-${randomBytes(4).toString('hex')}`;

const connections = [];
let stopping = false;
/** Removes the queue (a durable quorum queue left behind slows the broker) and the connections. */
async function cleanUp() {
  stopping = true;
  const [first] = connections;
  if (first) {
    const channel = await first.createChannel().catch(() => undefined);
    await channel?.deleteQueue(queue).catch(() => undefined);
  }
  await Promise.all(connections.map((connection) => connection.close().catch(() => undefined)));
}
process.once('SIGINT', () => void cleanUp().then(() => process.exit(130)));

const delivered = [];
const confirmed = [];
try {
  connections.push(await amqp.connect(url), await amqp.connect(url));
  const [publishing, consuming] = connections;
  const publisher = await publishing.createConfirmChannel();
  await publisher.assertQueue(queue, { durable: true, arguments: { 'x-queue-type': queueType } });
  const consumer = await consuming.createChannel();
  await consumer.prefetch(200);
  let allDelivered;
  const done = new Promise((resolve) => (allDelivered = resolve));
  await consumer.consume(queue, (message) => {
    if (!message) return; // cancelled: the queue is going
    delivered.push(performance.now() - Number(message.content.toString()));
    consumer.ack(message);
    if (delivered.length === expected) allDelivered();
  });
  const publish = () =>
    new Promise((resolve, reject) =>
      publisher.sendToQueue(queue, Buffer.from(String(performance.now())), { persistent: true }, (error) => (error ? reject(error) : resolve())),
    );

  for (let tick = 0; tick < ticks && !stopping; tick += 1) {
    const started = performance.now();
    await Promise.all(Array.from({ length: perTick }, publish));
    confirmed.push(performance.now() - started);
    const spare = 10 - (performance.now() - started);
    if (spare > 0) await new Promise((resolve) => setTimeout(resolve, spare));
  }
  let timer;
  await Promise.race([done, new Promise((resolve) => (timer = setTimeout(resolve, 10_000)))]);
  clearTimeout(timer);

  const figures = (values) => {
    if (values.length === 0) return 'none';
    const sorted = [...values].sort((a, b) => a - b);
    const at = (p) => percentile(sorted, p).toFixed(1);
    return `p50 ${at(50)} ms, p99 ${at(99)} ms, max ${at(100)} ms`;
  };
  console.log(`${queueType} queue, ${perTick * 100} messages/s for ${seconds} s (${delivered.length} of ${expected} delivered)`);
  console.log(`  publish to consumer: ${figures(delivered)}`);
  console.log(`  publish to confirm of each batch of ${perTick}: ${figures(confirmed)}`);
} finally {
  await cleanUp();
}
