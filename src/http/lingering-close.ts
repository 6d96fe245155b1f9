import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { LingeringLimits } from '../config.js';

type ClosableSocket = Socket & { destroySoon(): void };

/**
 * A lingering close, as nginx does it (`lingering_close`, `lingering_time`): an answer sent before its
 * request's body has all arrived (a 413, a 401 or 429 of the guard, a 415) must not close the
 * connection under a client still sending. Node closes by `socket.destroySoon()` once the answer is
 * written; a closed socket that then receives the rest of the body answers it with a TCP reset, and
 * the client's system drops the answer it had not yet read: the partner sees `fetch failed` or
 * ECONNRESET instead of the 413.
 *
 * So, for such a request: where Node would close, the connection is only half-closed after the
 * answer (our FIN, no reset) and the rest of the body is read and discarded until the client closes
 * its side; where Node keeps the connection alive, it discards the body itself and this only watches.
 * Either way the discarding is bounded: past `maxBytes` read or `maxMs` after the answer, the
 * connection is cut off, so a client trickling a body, or sending one without end, holds nothing for
 * long (REQUEST_TIMEOUT_MS, counted from the request's start, still applies as well).
 *
 * `linger` is called from the onSend hook of every answer: a request whose body is complete (nearly
 * all) costs one property read. `stop`, once the server closes: the connections still discarding are
 * cut off, and later answers close as Node does, so that no refused client holds a graceful shutdown.
 *
 * @see https://nginx.org/en/docs/http/ngx_http_core_module.html#lingering_close
 */
export function lingeringClose(limits: LingeringLimits): {
  linger(raw: IncomingMessage, response: ServerResponse): void;
  stop(): void;
} {
  const discarding = new Set<Socket>();
  let stopped = false;
  return {
    linger: (raw, response) => {
      if (!stopped) lingerIfBodyUnread(raw, response, limits, discarding);
    },
    stop: () => {
      stopped = true;
      for (const socket of discarding) socket.destroy();
    },
  };
}

function lingerIfBodyUnread(
  raw: IncomingMessage,
  response: ServerResponse,
  limits: LingeringLimits,
  discarding: Set<Socket>,
): void {
  // `inject`'s requests (light-my-request) have no `complete`, and no socket to linger on.
  const complete = raw.complete as boolean | undefined;
  if (complete !== false || !announcesBody(raw)) return;
  const socket = raw.socket as ClosableSocket;
  let closing = false;
  // An own property shadowing net.Socket's, for this answer only: Node calls it in its 'finish'
  // listener, which runs before ours (below), where it is removed again.
  socket.destroySoon = function lingerInsteadOfClosing(this: ClosableSocket) {
    if (raw.complete) {
      (Object.getPrototypeOf(this) as ClosableSocket).destroySoon.call(this);
      return;
    }
    closing = true;
    this.end();
  };
  response.once('finish', () => {
    delete (socket as Partial<ClosableSocket>).destroySoon;
    if (!raw.complete && !socket.destroyed) discardRest(socket, raw, closing, limits, discarding);
  });
  // An answer that fails before it finishes never closes through destroySoon.
  response.once('close', () => {
    if (!response.writableFinished) delete (socket as Partial<ClosableSocket>).destroySoon;
  });
}

/** True when the request says a body follows its headers. */
function announcesBody(raw: IncomingMessage): boolean {
  const length = raw.headers['content-length'];
  return raw.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * Counts what still arrives on `socket` after the answer. Node's HTTP parser reads it too (its
 * listener comes first) and throws the body away. A connection that stays open is left alone once its
 * request is complete; one being closed stays until the client closes its side (the socket then ends
 * itself). Either is cut off past the limits.
 */
function discardRest(
  socket: Socket,
  raw: IncomingMessage,
  closing: boolean,
  limits: LingeringLimits,
  discarding: Set<Socket>,
): void {
  let received = 0;
  const stop = () => {
    clearTimeout(timer);
    socket.off('data', count);
    socket.off('close', stop);
    discarding.delete(socket);
  };
  const cutOff = () => {
    stop();
    socket.destroy();
  };
  const count = (chunk: Buffer) => {
    received += chunk.length;
    if (received > limits.maxBytes) cutOff();
    else if (!closing && raw.complete) stop();
  };
  const timer = setTimeout(cutOff, limits.maxMs);
  socket.on('data', count);
  socket.once('close', stop);
  discarding.add(socket);
  readAgain(socket);
}

interface SocketHandle {
  reading?: boolean;
  readStart?: () => number;
}

/**
 * Node's HTTP server reads a socket in C++ (it "consumes" the handle) and stops the handle while a
 * request's body waits to be read. A 'data' listener hands the bytes back to JavaScript, but takes
 * away the server's 'resume' listener, the only thing that would start a stopped handle again: this
 * does what that listener does (`onSocketResume` in Node's lib/_http_server.js).
 */
function readAgain(socket: Socket): void {
  socket.resume();
  const handle = (socket as Socket & { _handle?: SocketHandle | null })._handle;
  if (handle && handle.reading === false && typeof handle.readStart === 'function') {
    handle.reading = true;
    handle.readStart();
  }
}
