import http, { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { vi } from 'vitest';
import { runInBackground } from '../../src/background.js';

/** A gate that holds answers until the test releases it (see `ScriptedResponse.heldBy`). */
export class Gate {
  private open!: () => void;
  readonly released = new Promise<void>((resolve) => (this.open = resolve));

  release(): void {
    this.open();
  }
}

/**
 * What the receiver answers to one request. `hang` never answers (a timing-out endpoint);
 * `heldBy` answers only once the gate is released (a slow endpoint the test controls).
 */
export interface ScriptedResponse {
  status?: number;
  body?: string;
  headers?: Record<string, string>;
  hang?: boolean;
  heldBy?: Gate;
}

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw body, exactly as received. */
  body: string;
}

/** A certificate and its key: the receiver speaks HTTPS (what a production server requires). */
export interface ReceiverTls {
  cert: Buffer | string;
  key: Buffer | string;
}

/**
 * A real HTTP server on 127.0.0.1 that records every request and answers from a script: the n-th
 * request gets `responses[n]`, and the last response repeats (default: 200 "ok"). With `tls`, an
 * HTTPS server (its certificate must be trusted by the sender: NODE_EXTRA_CA_CERTS for a process).
 */
export class WebhookReceiver {
  readonly received: ReceivedRequest[] = [];
  private responses: ScriptedResponse[];
  private server: http.Server | https.Server | null = null;
  private port = 0;
  private waiters: { count: number; resolve: () => void }[] = [];
  /** Requests received before the current script was set (the script counts from there). */
  private scriptOffset = 0;
  private unanswered = 0;
  private peak = 0;

  private constructor(
    responses: ScriptedResponse[],
    private readonly tls: ReceiverTls | undefined,
  ) {
    this.responses = responses;
  }

  static async start(
    responses: ScriptedResponse[] = [{ status: 200 }],
    port = 0,
    options: { tls?: ReceiverTls } = {},
  ): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver(responses, options.tls);
    await receiver.listen(port);
    return receiver;
  }

  /** `http://127.0.0.1:<port><path>` (https with `tls`). */
  url(path = '/hook'): string {
    return `${this.tls ? 'https' : 'http'}://127.0.0.1:${this.port}${path}`;
  }

  get listeningPort(): number {
    return this.port;
  }

  /** Changes the script; applies to the next request on (counted from now). */
  respondWith(...responses: ScriptedResponse[]): void {
    this.responses = responses;
    this.scriptOffset = this.received.length;
  }

  /** Requests received whose connection is still open without an answer (held or hanging). */
  get pending(): number {
    return this.unanswered;
  }

  /** The most requests that were ever pending at once (concurrency limits); `resetPeak` starts over. */
  get peakPending(): number {
    return this.peak;
  }

  resetPeak(): void {
    this.peak = this.unanswered;
  }

  /**
   * Resolves once `count` requests have arrived (in total). The timeout only turns a hang into a
   * failure: it is generous because loaded CI machines are slow, and no test relies on it.
   */
  async waitFor(count: number, timeoutMs = 15_000): Promise<ReceivedRequest[]> {
    if (this.received.length >= count) return this.received.slice(0, count);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w.resolve !== done);
        reject(new Error(`receiver got ${this.received.length} of ${count} requests within ${timeoutMs} ms`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      this.waiters.push({ count, resolve: done });
    });
    return this.received.slice(0, count);
  }

  /**
   * Verifies a request as a partner would, with the `standardwebhooks` package; returns the parsed
   * payload. The package checks the timestamp against the partner's clock (±5 min): `now` is that
   * clock, the real one by default; pass the injected clock's time when the server runs on a fake one.
   */
  static verify(secret: string, request: ReceivedRequest, now?: Date): any {
    const headers: Record<string, string> = {};
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
      const value = request.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    if (!now) return new Webhook(secret).verify(request.body, headers);
    // Synchronous: nothing else runs while Date is set to the partner's clock.
    vi.useFakeTimers({ toFake: ['Date'], now });
    try {
      return new Webhook(secret).verify(request.body, headers);
    } finally {
      vi.useRealTimers();
    }
  }

  /** Stops listening and drops every open connection (hanging ones included). */
  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = null;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  /** Listens again on the same port (after `stop`). */
  async restart(): Promise<void> {
    await this.listen(this.port);
  }

  private async listen(port: number): Promise<void> {
    const handle = (request: IncomingMessage, response: ServerResponse) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const index = this.received.length - this.scriptOffset;
        this.received.push({
          method: request.method ?? '',
          path: request.url ?? '',
          headers: request.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        });
        this.unanswered += 1;
        this.peak = Math.max(this.peak, this.unanswered);
        response.once('close', () => (this.unanswered -= 1));
        for (const waiter of this.waiters.filter((w) => this.received.length >= w.count)) waiter.resolve();
        this.waiters = this.waiters.filter((w) => this.received.length < w.count);
        const script = this.responses[Math.min(index, this.responses.length - 1)] ?? { status: 200 };
        if (script.hang) return;
        const answer = () => {
          if (response.destroyed) return;
          response.writeHead(script.status ?? 200, { 'content-type': 'text/plain', ...script.headers });
          response.end(script.body ?? 'ok');
        };
        if (script.heldBy) runInBackground(script.heldBy.released.then(answer), (error) => response.destroy(error as Error));
        else answer();
      });
    };
    const server = this.tls ? https.createServer({ cert: this.tls.cert, key: this.tls.key }, handle) : http.createServer(handle);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
  }
}
