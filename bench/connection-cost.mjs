// CPU of one webhook request on a kept-alive TLS connection against one on a new connection, for
// the sender (this process) and the receiver (bench/fast-receiver.mjs): why the worker's sender
// keeps an origin's connections warm by using them in turn (patches/undici@7.30.2.patch).
//
//   pnpm build && node bench/connection-cost.mjs
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createSecureContext, rootCertificates } from 'node:tls';
import { root } from './bench-support.mjs';
import { cpuSnapshot } from './process-cpu.mjs';

const { testCertificates } = await import(`${root}packages/test-support/dist/index.js`);
const { Agent } = await import(`${root}services/webhook-worker/node_modules/undici/index.js`);

const certificates = testCertificates();
const receiver = fork(new URL('./fast-receiver.mjs', import.meta.url), {
  env: { ...process.env, BENCH_RECEIVER_TLS: JSON.stringify({ tls: certificates.trusted }) },
});
const { port } = await new Promise((resolve) => receiver.once('message', resolve));
// The receiver's CPU so far, in 10 ms ticks (Linux; elsewhere the receiver's figure is NaN).
const receiverTicks = () => cpuSnapshot({ receiver: [receiver.pid] })?.receiver ?? Number.NaN;
const secureContext = createSecureContext({ ca: [...rootCertificates, readFileSync(certificates.caFile, 'utf8')] });
const body = JSON.stringify({ id: 'connection-cost', created_at: new Date().toISOString() });

async function post(agent, closeAfter) {
  const answer = await agent.request({
    origin: `https://localhost:${port}`,
    path: '/hooks',
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(closeAfter ? { connection: 'close' } : {}) },
    body,
  });
  await answer.body.dump();
}

async function measure(label, requests, newConnectionEach) {
  const agent = new Agent({ connect: { rejectUnauthorized: true, secureContext } });
  await post(agent, false); // connected, and this code compiled, before the count starts
  const cpuBefore = process.cpuUsage();
  const ticksBefore = receiverTicks();
  for (let n = 0; n < requests; n += 1) await post(agent, newConnectionEach);
  const cpu = process.cpuUsage(cpuBefore);
  const senderMs = (cpu.user + cpu.system) / 1000 / requests;
  const receiverMs = ((receiverTicks() - ticksBefore) * 10) / requests;
  console.log(`${label}: sender ${senderMs.toFixed(3)} ms, receiver ${receiverMs.toFixed(3)} ms of CPU per request`);
  await agent.close();
}

await measure('warm-up', 500, false);
await measure('kept-alive connection', 2000, false);
await measure('new connection for each request', 500, true);
receiver.kill();
