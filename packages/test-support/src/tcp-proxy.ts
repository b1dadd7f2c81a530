import { createServer, connect } from 'node:net';
import type { Server, Socket } from 'node:net';
import { once } from 'node:events';

/**
 * A TCP proxy in front of a real server. `interrupt()` cuts every connection and refuses new
 * ones, as a broker restart would, without disturbing anything else using that server;
 * `restore()` lets connections through again.
 */
export class TcpProxy {
  private readonly sockets = new Set<Socket>();
  private readonly clients = new Set<Socket>();
  private accepting = true;
  private stalled = false;

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    // Assigned once listening; connections cannot arrive before that.
    // eslint-disable-next-line prefer-const
    let proxy: TcpProxy | undefined;
    const server = createServer((client) => {
      if (!proxy?.accepting) {
        client.destroy();
        return;
      }
      const upstream = connect(target);
      proxy.sockets.add(client).add(upstream);
      proxy.clients.add(client);
      const cleanup = () => {
        client.destroy();
        upstream.destroy();
        proxy?.clients.delete(client);
        proxy?.sockets.delete(client);
        proxy?.sockets.delete(upstream);
      };
      client.on('error', cleanup).on('close', cleanup);
      upstream.on('error', cleanup).on('close', cleanup);
      client.pipe(upstream).pipe(client);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('proxy has no port');
    proxy = new TcpProxy(server, address.port);
    return proxy;
  }

  /** Rewrites a URL so it goes through the proxy. */
  urlFor(url: string): string {
    const parsed = new URL(url);
    parsed.hostname = '127.0.0.1';
    parsed.port = String(this.port);
    return parsed.toString();
  }

  /**
   * What clients wrote while stalled, which never arrived (the first MiB, as text): a test waits
   * for what it expects lost (an AMQP publish carries its routing key in the clear) to be sure the
   * write happened before it cuts the connection.
   */
  stalledText = '';

  /**
   * Stops passing on what clients send while their connections stay open: a client's publish is
   * written but never arrives (it is read here, kept in `stalledText`, and dropped; the client
   * never feels it). `interrupt()` then cuts the connections.
   */
  stallClients(): void {
    this.stalled = true;
    for (const client of this.clients) {
      client.unpipe();
      // unpipe() leaves the stream paused; a 'data' listener alone would not resume it.
      client
        .on('data', (chunk: Buffer) => {
          if (this.stalledText.length < 1 << 20) this.stalledText += chunk.toString('latin1');
        })
        .resume();
    }
  }

  interrupt(): void {
    this.accepting = false;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    this.clients.clear();
  }

  /** Also cuts connections left stalled (they cannot resume), so clients connect afresh. */
  restore(): void {
    if (this.stalled) this.interrupt();
    this.stalled = false;
    this.accepting = true;
  }

  async close(): Promise<void> {
    this.interrupt();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
