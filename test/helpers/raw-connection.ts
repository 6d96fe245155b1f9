import net from 'node:net';

/**
 * A plain TCP connection to a server, for what HTTP clients will not do: stop halfway through the
 * headers, trickle a body, sit idle on a keep-alive connection.
 */
export interface RawConnection {
  readonly socket: net.Socket;
  /** Everything the server sent so far. */
  received(): string;
  /** Resolves with everything the server sent, once the connection is closed. */
  readonly closed: Promise<string>;
  /** Writes, and resolves once the bytes are handed to the system. */
  write(text: string): Promise<void>;
  /** Resolves once what the server sent matches `pattern`. */
  waitFor(pattern: RegExp): Promise<void>;
}

/**
 * Connects to `baseUrl` (`http://host:port`) and resolves once connected. `allowHalfOpen`: keep
 * writing after the server has closed its side (Node's client otherwise stops writing then), as a
 * client sending a body without end would.
 */
export async function openRawConnection(baseUrl: string, options: { allowHalfOpen?: boolean } = {}): Promise<RawConnection> {
  const { hostname, port } = new URL(baseUrl);
  const socket = net.connect({ port: Number(port), host: hostname, allowHalfOpen: options.allowHalfOpen ?? false });
  let received = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
  // A reset by the server is one way of being cut off: what counts is that the connection closed.
  socket.on('error', () => undefined);
  const closed = new Promise<string>((resolve) => socket.once('close', () => resolve(received)));
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return {
    socket,
    received: () => received,
    closed,
    write: (text) => new Promise<void>((resolve) => socket.write(text, () => resolve())),
    waitFor: (pattern) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (!pattern.test(received)) return;
          socket.off('data', check);
          resolve();
        };
        socket.on('data', check);
        socket.once('close', () => (pattern.test(received) ? resolve() : reject(new Error(`closed before ${String(pattern)}`))));
        check();
      }),
  };
}

/** The status, headers and (JSON) body of the first response in raw bytes received. */
export function parseRawResponse(raw: string): { status: number; headers: Record<string, string>; body: any } {
  const split = raw.indexOf('\r\n\r\n');
  const [statusLine = '', ...lines] = raw.slice(0, split).split('\r\n');
  const headers = Object.fromEntries(
    lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
  );
  const length = Number(headers['content-length'] ?? raw.length);
  const body = raw.slice(split + 4, split + 4 + length);
  return { status: Number(statusLine.split(' ')[1]), headers, body: body.startsWith('{') ? JSON.parse(body) : body };
}

/**
 * `promise`, or a rejection naming `what` once `ms` have passed: the generous upper bound of
 * something that must happen "on time" (never a measure of how long it took).
 */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
