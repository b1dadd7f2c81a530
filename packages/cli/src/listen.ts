import WebSocket from 'ws';
import { forward } from './forward.js';
import type { DashboardSession } from './dashboard-session.js';

export interface ListenOptions {
  /** The API's base address, without `/dashboard/v1`. */
  apiUrl: string;
  appId: number;
  /** Where each request goes, on this machine. */
  forwardTo: URL;
  /** The events to receive; all but `webhook.ping` when empty. */
  events: string[];
  session: DashboardSession;
  /** Where lines go. Default: standard output. */
  print?: (line: string) => void;
}

export interface Listener {
  /** The session's endpoint id and its signing secret, once the service is ready. */
  ready: Promise<{ endpointId: string; signingSecret: string; events: string[] }>;
  /** Resolves when the connection has closed, with why. */
  closed: Promise<{ code: number; reason: string }>;
  /** Ends the session: nothing more is sent to it. */
  close(): void;
}

interface ServiceMessage {
  type: string;
  id?: string;
  headers?: Record<string, string>;
  body?: string;
  endpoint_id?: string;
  signing_secret?: string;
  events?: string[];
  error?: string;
  message?: string;
}

/** One line per request: when, which event and delivery, and what the local receiver said. */
function requestLine(headers: Record<string, string>, answer: { status?: number; error?: string; durationMs: number }): string {
  const lower = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
  const outcome = answer.status !== undefined ? `${answer.status}` : `failed (${answer.error})`;
  return `${new Date().toISOString()}  ${lower['x-service-event'] ?? '?'}  ${lower['x-service-delivery'] ?? '?'}  -> ${outcome} in ${answer.durationMs} ms`;
}

/**
 * Receives the app's events on this machine without any inbound connection: the tool holds a
 * WebSocket to the API, the service sends the session's requests over it, signed with the
 * session's secret, and each is posted unchanged to `forwardTo`; the local answer goes back to
 * the service and shows in the session's history.
 */
export function listen(options: ListenOptions): Listener {
  const print = options.print ?? ((line: string) => process.stdout.write(`${line}\n`));
  const url = new URL(`${options.apiUrl.replace(/^http/, 'ws')}/dashboard/v1/apps/${options.appId}/webhooks/listen`);
  if (options.events.length > 0) url.searchParams.set('events', options.events.join(','));
  const socket = new WebSocket(url, { headers: { authorization: `Bearer ${options.session.token}` } });
  let markReady!: (value: { endpointId: string; signingSecret: string; events: string[] }) => void;
  let failReady!: (error: Error) => void;
  const ready = new Promise<{ endpointId: string; signingSecret: string; events: string[] }>((resolve, reject) => {
    markReady = resolve;
    failReady = reject;
  });
  // A ready that never comes is told through `closed` too: no unhandled rejection.
  ready.catch(() => undefined);
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    socket.on('close', (code, reason) => {
      failReady(new Error(`the connection closed before the session was ready (${code} ${reason.toString()})`));
      resolve({ code, reason: reason.toString() });
    });
  });
  socket.on('unexpected-response', (_request, response) => {
    let text = '';
    response.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    response.on('end', () => {
      let reason = `${response.statusCode}`;
      try {
        const body = JSON.parse(text) as { error?: string; message?: string };
        reason = `${response.statusCode} ${body.error}: ${body.message}`;
      } catch {
        // Not the API's error body: the status alone.
      }
      failReady(new Error(`the service refused the session: ${reason}`));
      socket.terminate();
    });
  });
  socket.on('error', (error) => failReady(error));
  // The service checks the member's rights again with the latest token.
  options.session.onRenewal((token) => {
    if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ type: 'session', token }));
  });
  socket.on('message', (data) => {
    let message: ServiceMessage;
    try {
      message = JSON.parse(data.toString()) as ServiceMessage;
    } catch {
      return;
    }
    if (message.type === 'ready') {
      markReady({ endpointId: message.endpoint_id!, signingSecret: message.signing_secret!, events: message.events ?? [] });
    } else if (message.type === 'error') {
      print(`The service ended the session: ${message.error}: ${message.message}`);
    } else if (message.type === 'request' && message.id && message.headers && typeof message.body === 'string') {
      const { id, headers, body } = message;
      void forward(options.forwardTo, headers, body).then((answer) => {
        print(requestLine(headers, answer));
        if (socket.readyState !== WebSocket.OPEN) return;
        socket.send(
          JSON.stringify({
            type: 'answer',
            id,
            ...(answer.status !== undefined ? { status: answer.status, body_start: answer.bodyStart ?? '' } : {}),
            ...(answer.error !== undefined ? { error: answer.error } : {}),
          }),
        );
      });
    }
  });
  return {
    ready,
    closed,
    close: () => socket.close(1000, 'the tool stopped'),
  };
}

