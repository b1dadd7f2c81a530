// The ceiling a webhook worker is measured against: a bare HTTPS keep-alive POST loop, in a process
// of its own, to the benchmark's receiver. It sends what a delivery sends (the same body, the same
// header names and sizes, the same TLS client settings and undici pool), with none of the work
// around it: no broker, no database, no signing, no record.
//
// Forked by bench/webhook-throughput.mjs with BENCH_LOOP set. It answers { requestsPerSecond,
// senderCpuMs }, the latter this process's CPU per request in ms.
import { readFileSync } from 'node:fs';
import { createSecureContext, rootCertificates } from 'node:tls';
import { root } from './bench-support.mjs';

const { Agent } = await import(`${root}services/webhook-worker/node_modules/undici/index.js`);
const { DELIVERY_HEADER, EVENT_HEADER, SIGNATURE_HEADER } = await import(`${root}packages/webhook-signature/dist/index.js`);

const { url, caFile, body, inFlight, seconds } = JSON.parse(process.env.BENCH_LOOP);
const target = new URL(url);
// The worker's pool settings (services/webhook-worker/src/outbound/webhook-sender.ts).
const agent = new Agent({
  connections: 256,
  connect: { rejectUnauthorized: true, secureContext: createSecureContext({ ca: [...rootCertificates, readFileSync(caFile, 'utf8')] }) },
});
// A delivery's headers, with values of the same lengths: a signature, the event type, a delivery id.
const headers = {
  'content-type': 'application/json',
  'user-agent': 'FeedbackWebhooks/1.0',
  [SIGNATURE_HEADER]: `t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}`,
  [EVENT_HEADER]: 'suggestion.created',
  [DELIVERY_HEADER]: '00000000-0000-4000-8000-000000000000',
};

/** One request, answered: resolves with whether it was a 2xx. */
function post() {
  return new Promise((resolve) => {
    let status = 0;
    agent.dispatch(
      { origin: target.origin, path: target.pathname, method: 'POST', headers, body },
      {
        onRequestStart: () => {},
        onResponseStart: (_controller, statusCode) => {
          status = statusCode;
        },
        onResponseData: () => {},
        onResponseEnd: () => resolve(status >= 200 && status < 300),
        onResponseError: () => resolve(false),
      },
    );
  });
}

/** `inFlight` requests kept going until `ms` have passed; the count of 2xx answers. */
async function run(ms) {
  const until = performance.now() + ms;
  let answered = 0;
  let failed = 0;
  const lane = async () => {
    while (performance.now() < until) {
      if (await post()) answered += 1;
      else failed += 1;
    }
  };
  await Promise.all(Array.from({ length: inFlight }, lane));
  return { answered, failed };
}

await run(2000); // connections open and this code compiled before the count starts
const started = performance.now();
const cpuBefore = process.cpuUsage();
const { answered, failed } = await run(seconds * 1000);
const elapsed = (performance.now() - started) / 1000;
const { user, system } = process.cpuUsage(cpuBefore);
process.send({ requestsPerSecond: Math.round(answered / elapsed), senderCpuMs: (user + system) / 1000 / answered, failed });
await agent.close();
process.disconnect();
