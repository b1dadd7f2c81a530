import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

/** What the local receiver answered, or why it did not. */
export interface LocalAnswer {
  status?: number;
  /** The first 1 KiB of the answer, for the history. */
  bodyStart?: string;
  error?: string;
  durationMs: number;
}

const BODY_START_BYTES = 1024;

/**
 * POSTs a request to the local receiver exactly as the service sent it: the same headers, the
 * same raw body. No redirect is followed, and the same 10-second limit holds.
 */
export function forward(target: URL, headers: Record<string, string>, body: string, timeoutMs = 10_000): Promise<LocalAnswer> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const outgoing = send(target, { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, timeout: timeoutMs }, (answer) => {
      const kept: Buffer[] = [];
      let keptBytes = 0;
      answer.on('data', (chunk: Buffer) => {
        if (keptBytes < BODY_START_BYTES) {
          kept.push(chunk);
          keptBytes += chunk.length;
        }
      });
      answer.on('end', () =>
        resolve({ status: answer.statusCode, bodyStart: Buffer.concat(kept).subarray(0, BODY_START_BYTES).toString('utf8'), durationMs: elapsed() }),
      );
      answer.on('error', (error) => resolve({ status: answer.statusCode, error: error.message, durationMs: elapsed() }));
    });
    outgoing.on('timeout', () => outgoing.destroy(Object.assign(new Error(`no complete answer within ${timeoutMs} ms`), { code: 'ETIMEDOUT' })));
    outgoing.on('error', (error: Error & { code?: string }) => resolve({ error: error.code ? `${error.code}: ${error.message}` : error.message, durationMs: elapsed() }));
    outgoing.end(body);
  });
}
