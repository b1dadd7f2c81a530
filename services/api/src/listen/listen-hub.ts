import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ConfirmChannel, ConsumeMessage } from 'amqplib';
import { decodeJwt } from 'jose';
import { WebSocket, WebSocketServer } from 'ws';
import { AuthorityKeysUnavailable } from '@feedback/authority-keys';
import type { AuthorityKeys } from '@feedback/authority-keys';
import { EVENT_NAMES } from '@feedback/contracts';
import type { EventName } from '@feedback/contracts';
import type { Logger } from '@feedback/logging';
import { RpcError } from '@feedback/messaging';
import type { Broker, ChannelWrapper, RpcClient, TopologyNames } from '@feedback/messaging';
import { invalidSession } from '../auth/member-auth.js';
import { ApiError } from '../http/api-error.js';
import { clientAddressKey } from '../limits/client-address.js';
import type { SharedLimit } from '../limits/shared-limit.js';
import { recordId } from '../product/request-schemas.js';
import { asApiError, refuse } from './listen-refusals.js';

/** Where the tool connects: `/dashboard/v1/apps/{appId}/webhooks/listen`. */
const LISTEN_PATH = /^\/dashboard\/v1\/apps\/([^/]+)\/webhooks\/listen$/;

/** A session's queue outlives a broker reconnect of its api instance, not the instance: unused this long, the broker deletes it. */
const QUEUE_EXPIRES_MS = 60_000;

/** Requests of one session waiting for the tool's answer, at most: the worker's prefetch is far below. */
const MAX_WAITING = 1000;

export interface ListenHubOptions {
  broker: Broker;
  rpc: RpcClient;
  names: TopologyNames;
  logger: Logger;
  /** The authority's keys: a token is checked here first, so junk never reaches the authority. */
  sessionKeys: AuthorityKeys;
  /** The dashboard's failed-authentication count, which an upgrade's refusals go to as well. */
  failures: SharedLimit;
  /** The client's address, as Express finds it behind the proxies `TRUST_PROXY` names. */
  clientAddressOf: (request: IncomingMessage) => string | undefined;
  /** Whether this instance serves the dashboard (`SURFACES`); if not, every upgrade is 404. */
  served: boolean;
  /** Time limit of the calls to the authority and the worker. */
  timeoutMs: number;
  /**
   * How often the member's right to listen is checked again, which also renews the authority's
   * grant the session's close carries: under the grant's minute. Default: 30000.
   */
  reauthorizeMs?: number;
  /** How often the connection is pinged; one that does not answer by the next is closed. Default: 30000. */
  pingMs?: number;
}

interface Session {
  socket: WebSocket;
  channel: ChannelWrapper;
  queue: string;
  /** The app's owner as the authority last granted it; the grant is good for a minute. */
  owner: { team_id: string; app_id: number; plan: 'free' | 'starter' | 'pro'; plan_version: number; grant: string };
  endpointId?: string;
  /** The member's latest session token: the tool sends each renewal. */
  token: string;
  /** Requests sent to the tool and not yet answered: their reply address, oldest first. */
  waiting: Map<string, { replyTo: string; correlationId: string }>;
  timers: NodeJS.Timeout[];
  closed: boolean;
}

/**
 * `listen` sessions: the tool's WebSocket, held by this api instance, and the session's broker
 * queue, from which the worker's requests are passed to the tool and its answers passed back.
 * The connection closing ends the session at the worker: nothing more is sent to it.
 */
export class ListenHub {
  private readonly server = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
  private readonly sessions = new Set<Session>();
  private stopped = false;

  constructor(private readonly options: ListenHubOptions) {}

  /** Takes the upgrades of `server` to the listen path; any other upgrade is refused. */
  attach(server: Server): void {
    server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      socket.on('error', () => undefined);
      void this.upgrade(request, socket, head).catch((error: unknown) => {
        const refused = asApiError(error);
        if (refused.status >= 500) this.options.logger.error('listen session refused', { error });
        refuse(socket, refused);
      });
    });
  }

  /**
   * An upgrade is checked as any dashboard request: counted against its address's failed
   * authentications before the work, its token checked here before the authority is asked.
   */
  private async upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const match = LISTEN_PATH.exec(url.pathname);
    if (!match || !this.options.served) throw new ApiError('not_found', 'No WebSocket is served here.');
    if (this.stopped) throw new ApiError('service_unavailable', 'This server is stopping. Connect again.', {}, { 'Retry-After': '1' });
    const client = clientAddressKey(this.options.clientAddressOf(request));
    await this.options.failures.take(client, 'Too many failed authentication attempts. Wait before retrying.');
    let failed = true;
    try {
      const token = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
      if (!token) throw invalidSession();
      await this.options.sessionKeys.verify(token, { issuer: 'authority', audience: 'dashboard', algorithms: ['EdDSA'] }).catch((error: unknown) => {
        if (!(error instanceof AuthorityKeysUnavailable)) throw invalidSession();
        failed = false;
        throw new ApiError('service_unavailable', 'Sessions cannot be checked right now. Retry shortly.', {}, { 'Retry-After': '1' });
      });
      const appId = recordId(match[1]);
      const events = this.eventsOf(url.searchParams.getAll('events'));
      // The authority verifies the token itself, its session live, and the member's role.
      const granted = await this.options.rpc
        .call('authority.authorizeWebhookManagement', { app_id: appId, session: token }, { timeoutMs: this.options.timeoutMs })
        .catch((error: unknown) => {
          failed = error instanceof RpcError && error.code === 'session_invalid';
          throw error;
        });
      failed = false;
      const owner = { team_id: granted.team_id, app_id: granted.app.id, plan: granted.plan, plan_version: granted.plan_version, grant: granted.grant };
      if (owner.plan === 'free') throw new ApiError('plan_limit_reached', 'Webhooks are not included in the Free plan. Upgrade to Starter or Pro.');
      const memberName = String(decodeJwt(token)['name'] ?? 'a member');
      const socketOpen = await new Promise<WebSocket>((resolve) => this.server.handleUpgrade(request, socket, head, resolve));
      // Upgraded, the socket speaks WebSocket: a failure from here closes it with a code.
      await this.open(socketOpen, { owner, token, events, memberName }).catch((error: unknown) => {
        this.options.logger.error('listen session could not start', { error });
        socketOpen.close(1011, 'internal_error');
      });
    } finally {
      if (!failed) void this.options.failures.giveBack(client);
    }
  }

  private eventsOf(raw: string[]): EventName[] {
    const chosen = [...new Set(raw.flatMap((value) => value.split(',')).map((value) => value.trim()).filter(Boolean))];
    const unknown = chosen.find((event) => !(EVENT_NAMES as readonly string[]).includes(event));
    if (unknown !== undefined) throw new ApiError('validation_failed', `events "${unknown.slice(0, 100)}" is not one of: ${EVENT_NAMES.join(', ')}.`, { field: '/events' });
    return (chosen.length > 0 ? chosen : EVENT_NAMES.filter((event) => event !== 'webhook.ping')) as EventName[];
  }

  private async open(socket: WebSocket, start: { owner: Session['owner']; token: string; events: EventName[]; memberName: string }): Promise<void> {
    const { broker, names, logger } = this.options;
    const queue = names.listenQueue(randomUUID());
    const session: Session = { socket, queue, owner: start.owner, token: start.token, waiting: new Map(), timers: [], closed: false, channel: undefined as unknown as ChannelWrapper };
    this.sessions.add(session);
    socket.on('close', () => void this.close(session));
    socket.on('error', () => socket.terminate());
    socket.on('message', (data) => this.onToolMessage(session, data.toString()));
    // Declared, and consumed, before the worker knows the session, so no request finds it missing.
    session.channel = broker.channel(`listen ${queue}`, async (channel) => {
      await channel.assertQueue(queue, { durable: false, autoDelete: false, exclusive: false, arguments: { 'x-expires': QUEUE_EXPIRES_MS } });
      await channel.consume(queue, (message) => message && this.onRequest(session, message), { noAck: true });
    });
    await session.channel.waitForConnect();
    // The tool may have gone while the queue was made: close() has run and found no session to end.
    if (session.closed) return;
    try {
      const opened = await this.options.rpc.call(
        'webhook-worker.openListenSession',
        { owner: start.owner, queue, events: start.events, member_name: start.memberName },
        { timeoutMs: this.options.timeoutMs },
      );
      session.endpointId = opened.endpoint_id;
      if (session.closed) {
        // Closed while the worker opened it: close() could not name it, so it is ended here.
        await this.endAtWorker(session);
        return;
      }
      // The secret crosses the connection once, to the tool that prints it.
      this.send(session, { type: 'ready', endpoint_id: opened.endpoint_id, signing_secret: opened.signing_secret, events: start.events });
      logger.info('listen session opened', { endpointId: opened.endpoint_id, appId: start.owner.app_id });
    } catch (error) {
      const refused = asApiError(error);
      this.send(session, { type: 'error', error: refused.code, message: refused.message });
      socket.close(4000 + Math.min(refused.status, 599), refused.code);
      return;
    }
    this.watch(session);
  }

  /** Pings the tool, and checks again that its member may still listen. */
  private watch(session: Session): void {
    let answered = true;
    session.socket.on('pong', () => (answered = true));
    const ping = setInterval(() => {
      if (!answered) session.socket.terminate();
      answered = false;
      session.socket.ping();
    }, this.options.pingMs ?? 30_000);
    const recheck = setInterval(() => {
      this.options.rpc
        .call('authority.authorizeWebhookManagement', { app_id: session.owner.app_id, session: session.token }, { timeoutMs: this.options.timeoutMs })
        .then((granted) => {
          // A fresh grant, for the session's close.
          session.owner = { ...session.owner, plan: granted.plan, plan_version: granted.plan_version, grant: granted.grant };
          if (granted.plan !== 'free') return;
          this.send(session, { type: 'error', error: 'plan_limit_reached', message: 'The team moved to the Free plan, which includes no webhooks.' });
          session.socket.close(4403, 'plan_limit_reached');
        })
        .catch((error: unknown) => {
          // A service that did not answer says nothing about the member: checked again next time.
          if (!(error instanceof RpcError)) return;
          const code = error.code === 'session_invalid' ? 4401 : 4403;
          this.send(session, { type: 'error', error: error.code === 'session_invalid' ? 'invalid_session' : error.code, message: error.message });
          session.socket.close(code, error.code);
        });
    }, this.options.reauthorizeMs ?? 30_000);
    ping.unref();
    recheck.unref();
    session.timers.push(ping, recheck);
  }

  private send(session: Session, message: Record<string, unknown>): void {
    if (session.socket.readyState === WebSocket.OPEN) session.socket.send(JSON.stringify(message));
  }

  /** A request from the worker: passed to the tool, its reply address kept for the answer. */
  private onRequest(session: Session, message: ConsumeMessage): void {
    let request: { headers: Record<string, string>; body: string };
    try {
      request = JSON.parse(message.content.toString('utf8')) as typeof request;
    } catch {
      return;
    }
    const id = randomUUID();
    session.waiting.set(id, { replyTo: String(message.properties.replyTo), correlationId: String(message.properties.correlationId) });
    // A tool that never answers leaves nothing growing: the worker gave up on the oldest long ago.
    if (session.waiting.size > MAX_WAITING) session.waiting.delete(session.waiting.keys().next().value!);
    this.send(session, { type: 'request', id, headers: request.headers, body: request.body });
  }

  private onToolMessage(session: Session, text: string): void {
    let message: { type?: unknown; id?: unknown; token?: unknown; status?: unknown; error?: unknown; body_start?: unknown };
    try {
      message = JSON.parse(text) as typeof message;
    } catch {
      return;
    }
    if (message.type === 'session' && typeof message.token === 'string') {
      session.token = message.token;
      return;
    }
    if (message.type !== 'answer' || typeof message.id !== 'string') return;
    const waiting = session.waiting.get(message.id);
    if (!waiting) return;
    session.waiting.delete(message.id);
    const answer = {
      ...(typeof message.status === 'number' ? { status: message.status } : {}),
      ...(typeof message.error === 'string' ? { error: message.error.slice(0, 500) } : {}),
      ...(typeof message.body_start === 'string' ? { body_start: message.body_start.slice(0, 1024) } : {}),
    };
    // Through `replies`, to the worker's own queue: this login may not write to the default exchange.
    session.channel
      .publish(this.options.names.replies, waiting.replyTo, Buffer.from(JSON.stringify(answer)), { correlationId: waiting.correlationId, contentType: 'application/json' })
      .catch((error: unknown) => this.options.logger.warn('a listen answer was not passed back; the attempt times out', { error }));
  }

  /** Tells the worker the session has ended. Failing that, its queue goes, and the worker ends it at its next request. */
  private async endAtWorker(session: Session): Promise<void> {
    await this.options.rpc
      .call('webhook-worker.closeListenSession', { owner: session.owner, endpoint_id: session.endpointId! }, { timeoutMs: this.options.timeoutMs })
      .then(() => this.options.logger.info('listen session ended', { endpointId: session.endpointId }))
      .catch((error: unknown) => this.options.logger.warn('listen session end not told to the worker', { error, endpointId: session.endpointId }));
  }

  /** The tool disconnected, or this instance stops: the session ends at the worker. */
  private async close(session: Session): Promise<void> {
    if (session.closed) return;
    session.closed = true;
    this.sessions.delete(session);
    for (const timer of session.timers) clearInterval(timer);
    if (session.endpointId) await this.endAtWorker(session);
    await session.channel
      .addSetup(async (channel: ConfirmChannel) => {
        await channel.deleteQueue(session.queue);
      })
      .catch(() => undefined);
    await session.channel.close().catch(() => undefined);
  }

  /** Closes every session (1001, going away): at shutdown, before the broker. */
  async stop(): Promise<void> {
    this.stopped = true;
    const sessions = [...this.sessions];
    for (const session of sessions) session.socket.close(1001, 'the server is stopping');
    await Promise.all(sessions.map((session) => this.close(session)));
    this.server.close();
  }
}
