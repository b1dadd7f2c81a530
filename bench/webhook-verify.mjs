// Verifications per second of @feedback/webhook-signature next to a bare crypto.createHmac loop
// over the same bodies and headers, in one run. Target: the library within 10% of the bare loop.
//
//   pnpm build && node bench/webhook-verify.mjs
//   BENCH_VERIFICATIONS=200000 node bench/webhook-verify.mjs
import { createHmac } from 'node:crypto';
import { root } from './bench-support.mjs';

const { verify, sign } = await import(`${root}packages/webhook-signature/dist/index.js`);

const count = Number(process.env.BENCH_VERIFICATIONS ?? 100_000);
const rounds = 9;
const secret = `whsec_${'k'.repeat(43)}`;
const now = Math.floor(Date.now() / 1000);

/** A ticket.replied envelope whose reply body makes it about `size` bytes. */
function envelope(size) {
  const shell = {
    id: '7d4c2b8e-2f6a-4d0e-9a51-3c1f0b6e9d42',
    event: 'ticket.replied',
    created_at: new Date().toISOString(),
    app: { id: 42, public_key: 'pk_live_bench' },
    data: { ticket_id: 1, ticket_number: 'T-1042', message_id: 7, sender_type: 'agent', body: '', author: { external_id: 'u1', name: 'Ana' }, sender: { type: 'member', external_id: null, name: 'Sam' } },
  };
  shell.data.body = 'x'.repeat(Math.max(0, size - JSON.stringify(shell).length));
  return JSON.stringify(shell);
}

// The bare loop: what any receiver must do at least — parse nothing, HMAC the bytes, compare hex.
function bare(body, header) {
  const comma = header.indexOf(',');
  const t = header.slice(2, comma);
  return createHmac('sha256', secret).update(`${t}.${body}`).digest('hex') === header.slice(comma + 4);
}

function library(body, header) {
  verify(body, header, secret);
  return true;
}

function rate(check, body, header) {
  const started = process.hrtime.bigint();
  let ok = true;
  for (let i = 0; i < count; i += 1) ok = check(body, header) && ok;
  if (!ok) throw new Error('a verification failed');
  return count / (Number(process.hrtime.bigint() - started) / 1e9);
}

console.log(`${count} verifications per measurement, best of ${rounds} alternating rounds, Node ${process.version}`);
for (const size of [300, 2_000, 16_000]) {
  const body = envelope(size);
  // As a request's header arrives: a flat string from the HTTP parser, not the signer's concatenation.
  const header = Buffer.from(sign(body, secret, { timestamp: now }), 'latin1').toString('latin1');
  rate(bare, body, header); // warm-up, both
  rate(library, body, header);
  let bestBare = 0;
  let bestLibrary = 0;
  for (let round = 0; round < rounds; round += 1) {
    bestBare = Math.max(bestBare, rate(bare, body, header));
    bestLibrary = Math.max(bestLibrary, rate(library, body, header));
  }
  const ratio = bestLibrary / bestBare;
  console.log(
    `${String(body.length).padStart(6)} B body: library ${Math.round(bestLibrary).toLocaleString('en')}/s, bare createHmac ${Math.round(bestBare).toLocaleString('en')}/s, library/bare ${(ratio * 100).toFixed(1)}%${ratio >= 0.9 ? '' : '  (below 90%)'}`,
  );
}
