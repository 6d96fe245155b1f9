import net from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP proxy in front of PostgreSQL that holds back one kind of statement until the test releases
 * it: a connection whose client sends a statement matching `held` (the simple query protocol sends
 * its text as is) gets nothing more through, that statement included, until `release()`. Every
 * other connection, and every other statement, passes at once. For a moment a process's start
 * cannot be past (the webhook worker's LISTEN, src/db/notifications.ts) without a sleep.
 */
export class StatementHoldProxy {
  private readonly sockets = new Set<net.Socket>();
  private readonly waiting: (() => void)[] = [];
  private released = false;
  private heldOne!: () => void;
  /** Resolves once a statement matching `held` has arrived and is held. */
  readonly holding = new Promise<void>((resolve) => (this.heldOne = resolve));

  private constructor(
    private readonly server: net.Server,
    private readonly held: RegExp,
  ) {}

  /** Listens on 127.0.0.1 (a free port), forwarding to `target`'s host and port. */
  static async start(target: { host: string; port: number }, held: RegExp): Promise<StatementHoldProxy> {
    const server = net.createServer();
    const proxy = new StatementHoldProxy(server, held);
    server.on('connection', (client) => proxy.forward(client, target));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    return proxy;
  }

  /** `databaseUrl` (postgres://…) through this proxy: same user, database and options. */
  url(databaseUrl: string): string {
    const url = new URL(databaseUrl);
    url.hostname = '127.0.0.1';
    url.port = String((this.server.address() as AddressInfo).port);
    return url.toString();
  }

  /** Lets what was held through, and everything from now on. */
  release(): void {
    this.released = true;
    for (const resume of this.waiting.splice(0)) resume();
  }

  /** Stops listening and cuts every connection. */
  async close(): Promise<void> {
    this.release();
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private forward(client: net.Socket, target: { host: string; port: number }): void {
    const upstream = net.connect(target.port, target.host);
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    let holding = false;
    const pending: Buffer[] = [];
    client.on('data', (chunk: Buffer) => {
      if (!holding && !this.released && this.held.test(chunk.toString('latin1'))) {
        holding = true;
        this.waiting.push(() => {
          holding = false;
          for (const buffered of pending.splice(0)) upstream.write(buffered);
        });
        this.heldOne();
      }
      if (holding) pending.push(chunk);
      else upstream.write(chunk);
    });
  }
}
