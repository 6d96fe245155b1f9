import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { patientBody } from '../helpers/fixtures.js';
import { TestApp, type TestClinic } from '../helpers/test-app.js';

/**
 * While the server closes (graceful shutdown, issue 8 item 11), a request that still arrives on an
 * open connection gets the error envelope's 503, not Fastify's own body. Not about the database:
 * SQLite only. A real port: `inject` refuses to run on a closing app.
 */
describe('a request arriving while the server closes', () => {
  let t: TestApp;
  let clinic: TestClinic;

  beforeAll(async () => {
    t = await TestApp.start({ dialect: 'sqlite' });
    clinic = await t.createClinic();
    await t.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => t.close());

  it('when a request is pipelined behind one in flight as the close starts, then the first finishes and the second gets 503 SERVICE_UNAVAILABLE', async () => {
    const body = JSON.stringify(patientBody(clinic.clinicId));
    const headers = `Host: localhost\r\nx-api-key: ${clinic.apiKey}\r\naccept: application/json\r\ncontent-type: application/json`;
    const socket = net.connect((t.app.server.address() as AddressInfo).port, '127.0.0.1');
    let received = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
    const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    await new Promise<void>((resolve) => socket.once('connect', resolve));

    // The first request is in flight (its body not all sent) when the close starts...
    socket.write(`POST /api/external/patient HTTP/1.1\r\n${headers}\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n`);
    const arrived = new Promise((resolve) => t.app.server.once('request', resolve));
    socket.write(body.slice(0, 10));
    await arrived;
    const closed = t.app.close();
    // server.close() has been called once the server no longer listens (after the preClose hooks).
    while (t.app.server.listening) await new Promise((resolve) => setImmediate(resolve));
    // ...then it completes, with a second request right behind it on the same connection.
    socket.write(`${body.slice(10)}GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n`);
    await ended;
    await closed;

    const [first, second] = received.split(/(?=HTTP\/1\.1 )/);
    expect(first).toMatch(/^HTTP\/1\.1 200 /);
    expect(second).toMatch(/^HTTP\/1\.1 503 /);
    expect(second?.toLowerCase()).toContain('connection: close');
    const envelope = JSON.parse(second?.slice(second.indexOf('\r\n\r\n') + 4) ?? '') as {
      success: boolean;
      error: { code: string };
    };
    expect(envelope).toMatchObject({ success: false, error: { code: 'SERVICE_UNAVAILABLE' } });
  });
});
