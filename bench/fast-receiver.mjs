// The benchmark's HTTPS receiver, in a process of its own so that its event loop measures arrivals
// without waiting on the api's. It answers 204 at once, notes each delivery's event-to-arrival
// latency, and answers its parent's questions over IPC.
import { once } from 'node:events';
import { createServer } from 'node:https';

const { tls } = JSON.parse(process.env.BENCH_RECEIVER_TLS);
const latencies = new Map(); // delivery id -> ms from the event's created_at to arrival
let tlsConnections = 0;

const receiver = createServer(tls, (request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    const envelope = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    latencies.set(envelope.id, Date.now() - Date.parse(envelope.created_at));
    response.writeHead(204).end();
  });
});
receiver.on('secureConnection', () => (tlsConnections += 1));
receiver.listen(0, '127.0.0.1');
await once(receiver, 'listening');

process.on('message', (question) => {
  if (question === 'count') process.send({ count: latencies.size });
  else if (question === 'reset') {
    latencies.clear();
    process.send({ reset: true });
  }
  else if (question === 'report') process.send({ latencies: [...latencies.values()], tlsConnections });
  else if (question === 'stop') receiver.close(() => process.exit(0));
});
process.send({ port: receiver.address().port });
// The benchmark is gone (it ended, or failed): so is its receiver.
process.on('disconnect', () => process.exit(0));
