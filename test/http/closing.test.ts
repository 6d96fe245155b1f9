import net, { type AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { patientBody } from '../helpers/fixtures.js';
import { TestApp, type TestClinic } from '../helpers/test-app.js';

/**
 * What a client sees while the server closes (graceful shutdown, issue 8 item 11). Not about the
 * database: SQLite only. A real port and raw connections: `inject` refuses to run on a closing app,
 * and the point is what happens to connections.
 */
describe('requests while the server closes', () => {
  let t: TestApp;
  let clinic: TestClinic;

  beforeEach(async () => {
    t = await TestApp.start({ dialect: 'sqlite' });
    clinic = await t.createClinic();
    await t.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterEach(async () => t.close());

  /** A raw connection whose bytes have reached the server once `write` resolves. */
  async function connect() {
    let serverSide: net.Socket | undefined;
    t.app.server.once('connection', (socket: net.Socket) => (serverSide = socket));
    const socket = net.connect((t.app.server.address() as AddressInfo).port, '127.0.0.1');
    let received = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
    const ended = new Promise<string>((resolve) => socket.once('close', () => resolve(received)));
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    let sent = 0;
    return {
      ended,
      /**
       * Writes, and resolves once the server has read every byte sent so far. Its HTTP parser reads
       * the socket natively (no 'data' events), so count the bytes read instead; the parser runs on
       * each read before any JavaScript, so it has then seen them too.
       */
      write: async (text: string) => {
        sent += Buffer.byteLength(text);
        socket.write(text);
        while ((serverSide?.bytesRead ?? 0) < sent) await new Promise((resolve) => setImmediate(resolve));
      },
    };
  }

  /** Starts the close and resolves once the server has stopped listening (its preClose hooks ran). */
  async function startClosing(): Promise<{ closed: Promise<void> }> {
    const closed = t.app.close();
    while (t.app.server.listening) await new Promise((resolve) => setImmediate(resolve));
    // Wrapped: an async function returning the promise itself would wait for it.
    return { closed };
  }

  it('when a request is in flight as the close starts, then it is answered, with Connection: close, and the close waits for it', async () => {
    const body = JSON.stringify(patientBody(clinic.clinicId));
    const connection = await connect();
    await connection.write(
      `POST /api/external/patient HTTP/1.1\r\nHost: localhost\r\nx-api-key: ${clinic.apiKey}\r\naccept: application/json\r\n` +
        `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 10)}`,
    );
    const { closed } = await startClosing();
    await connection.write(body.slice(10));

    const answer = await connection.ended;
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(answer.toLowerCase()).toContain('connection: close');
    await closed;
  });

  it('when a request arrives on an open connection after the close started, then it gets 503 SERVICE_UNAVAILABLE in the error envelope', async () => {
    const connection = await connect();
    // The request has begun (so the connection is not idle, and not dropped by the close)...
    await connection.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n');
    const { closed } = await startClosing();
    // ...and completes once the server is closing.
    await connection.write('\r\n');

    const answer = await connection.ended;
    expect(answer).toMatch(/^HTTP\/1\.1 503 /);
    expect(answer.toLowerCase()).toContain('connection: close');
    const envelope = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { success: boolean; error: { code: string } };
    const requestId = /^x-request-id: (\S+)\r$/im.exec(answer)?.[1];
    expect(requestId).toBeDefined();
    expect(envelope).toEqual({
      success: false,
      error: { message: expect.stringContaining('shutting down'), code: 'SERVICE_UNAVAILABLE', request_id: requestId },
    });
    await closed;
  });
});
