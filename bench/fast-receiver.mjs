// The benchmark's HTTPS receiver, in a process of its own so that its event loop measures arrivals
// without waiting on the api's. It answers 204 at once (or after BENCH_RECEIVER_DELAY_MS), notes each delivery's event-to-arrival
// latency, and answers its parent's questions over IPC.
//
// It shares the machine's two cores with the system it measures, so it is as cheap as a correct
// receiver can be: TLS from node:tls, and HTTP/1.1 read straight off the connection (request line
// and headers up to the blank line, then Content-Length bytes of body; kept-alive connections,
// several requests in one read) rather than node:https, whose request and response objects and
// streams cost more CPU per delivery than the rest of the receiver. Anything it does not expect
// (no Content-Length, chunked bodies, oversized headers) closes the connection, so the benchmark
// would show the deliveries as failed rather than count them wrongly.
import { once } from 'node:events';
import { createServer } from 'node:tls';

const { tls } = JSON.parse(process.env.BENCH_RECEIVER_TLS);
// A receiver that takes this long per answer (BENCH_RECEIVER_DELAY_MS): each answer is written
// that long after its request arrived, in order, so a connection's answers keep their order.
const delayMs = Number(process.env.BENCH_RECEIVER_DELAY_MS ?? 0);
const latencies = new Map(); // delivery id -> ms from the event's created_at to arrival
const arrivals = new Map(); // delivery id -> ms from the last reset to arrival
let resetAt = Date.now();
let tlsConnections = 0;
let reusedSessions = 0;
let connectedAt = []; // ms from the last reset to each TLS connection accepted since

const HEADER_END = Buffer.from('\r\n\r\n');
const MAX_HEADER_BYTES = 16 * 1024;
const NO_CONTENT = Buffer.from('HTTP/1.1 204 No Content\r\nKeep-Alive: timeout=5\r\n\r\n');
const BAD_REQUEST = Buffer.from('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');

/** Notes a delivery's latency; false when the body is not an envelope. */
function received(body) {
  try {
    const envelope = JSON.parse(body.toString('utf8'));
    const now = Date.now();
    latencies.set(envelope.id, now - Date.parse(envelope.created_at));
    arrivals.set(envelope.id, now - resetAt);
    return true;
  } catch {
    return false;
  }
}

const connections = new Set();

const receiver = createServer(tls, (socket) => {
  tlsConnections += 1;
  connectedAt.push(Date.now() - resetAt);
  if (socket.isSessionReused()) reusedSessions += 1;
  connections.add(socket);
  socket.on('close', () => connections.delete(socket));
  let pending = Buffer.alloc(0);
  socket.on('error', () => socket.destroy());
  socket.on('data', (chunk) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    let answers = 0;
    const send = (write) => (delayMs > 0 ? setTimeout(write, delayMs) : write());
    const answer = () => {
      if (answers === 0) return;
      const bytes = answers === 1 ? NO_CONTENT : Buffer.concat(Array.from({ length: answers }, () => NO_CONTENT));
      send(() => socket.write(bytes));
    };
    const refuse = () => {
      answer();
      send(() => socket.end(BAD_REQUEST));
    };
    for (;;) {
      const headerEnd = pending.indexOf(HEADER_END);
      if (headerEnd < 0) {
        if (pending.length > MAX_HEADER_BYTES) return refuse();
        break;
      }
      const head = pending.toString('latin1', 0, headerEnd);
      if (/\r\ntransfer-encoding:/i.test(head)) return refuse();
      const length = /\r\ncontent-length: *(\d+)/i.exec(head);
      if (!head.startsWith('POST ') || !length) return refuse();
      const bodyStart = headerEnd + HEADER_END.length;
      const bodyEnd = bodyStart + Number(length[1]);
      if (pending.length < bodyEnd) break;
      if (!received(pending.subarray(bodyStart, bodyEnd))) return refuse();
      pending = pending.subarray(bodyEnd);
      answers += 1;
    }
    answer();
  });
});
receiver.listen(0, '127.0.0.1');
await once(receiver, 'listening');

process.on('message', (question) => {
  if (question === 'count') process.send({ count: latencies.size });
  else if (question === 'reset') {
    latencies.clear();
    arrivals.clear();
    connectedAt = [];
    resetAt = Date.now();
    process.send({ reset: true });
  }
  else if (question === 'report') {
    // The slowest 1% by delivery id, so the benchmark can show where their time went.
    // When they arrived (ms after the reset) tells a stall of the whole machine, where they come
    // in clusters, from queueing spread over the run.
    const slowest = [...latencies].sort((a, b) => b[1] - a[1]).slice(0, Math.ceil(latencies.size / 100)).map(([id]) => id);
    const slowestArrivals = slowest.map((id) => arrivals.get(id));
    process.send({ latencies: [...latencies.values()], slowest, slowestArrivals, connectedAt, tlsConnections, reusedSessions });
  }
  else if (question === 'stop') {
    receiver.close(() => process.exit(0));
    for (const socket of connections) socket.destroy();
  }
});
process.send({ port: receiver.address().port });
// The benchmark is gone (it ended, or failed): so is its receiver.
process.on('disconnect', () => process.exit(0));
