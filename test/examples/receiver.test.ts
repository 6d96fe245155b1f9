import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { orderBody } from '../helpers/factories.js';
import { patientBody, practitionerBody } from '../helpers/fixtures.js';
import { freePort } from '../helpers/private-redis.js';
import { killServerProcesses, sandboxCredentials, startServerProcess, type ServerProcess } from '../helpers/server-process.js';

/**
 * examples/receiver.mjs, run as a partner developer runs it (`node examples/receiver.mjs`), receiving
 * the real server's deliveries.
 */

const RECEIVER = path.resolve(import.meta.dirname, '../../examples/receiver.mjs');

interface Receiver {
  readonly url: string;
  /** Resolves with the first line of the stream matching `pattern`; rejects if the receiver exits first. */
  line(pattern: RegExp, stream?: 'stdout' | 'stderr'): Promise<string>;
  stdout(): string;
  stderr(): string;
}

const receivers = new Set<ChildProcess>();

/** The receiver as a child process; PORT and HOST are the server's (README, "Another port"): it must not read them. */
function spawnReceiver(secret: string, port: number): ChildProcess & { stdout: Readable; stderr: Readable } {
  const child = spawn(process.execPath, [RECEIVER], {
    env: { ...process.env, RECEIVER_PORT: String(port), PORT: '3100', HOST: '0.0.0.0', WEBHOOK_SECRET: secret },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  receivers.add(child);
  return child;
}

async function startReceiver(secret: string, port: number): Promise<Receiver> {
  const child = spawnReceiver(secret, port);
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const line = (pattern: RegExp, stream: 'stdout' | 'stderr' = 'stdout') =>
    new Promise<string>((resolve, reject) => {
      const check = () => {
        const found = (stream === 'stdout' ? out : err).split('\n').find((candidate) => pattern.test(candidate));
        if (found === undefined) return;
        child[stream].off('data', check);
        resolve(found);
      };
      child[stream].on('data', check);
      child.once('exit', (code) => reject(new Error(`the receiver exited with ${String(code)}:\n${out}\n${err}`)));
      check();
    });
  await line(/^Webhook receiver listening on /);
  return { url: `http://127.0.0.1:${port}/webhooks`, line, stdout: () => out, stderr: () => err };
}

/** POSTs an event with no payload ids to the receiver, signed with `secret` as the API signs. */
async function deliver(receiver: Receiver, id: string, secret: string): Promise<Response> {
  const body = JSON.stringify({ type: 'order.created', timestamp: new Date().toISOString(), data: {} });
  const now = new Date();
  return fetch(receiver.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign(id, now, body),
    },
    body,
  });
}

afterEach(() => {
  for (const child of receivers) child.kill();
  receivers.clear();
});
afterAll(killServerProcesses);

describe('examples/receiver.mjs', { timeout: 30_000 }, () => {
  let server: ServerProcess;
  let clinicId: string;
  let apiKey: string;

  beforeAll(async () => {
    server = await startServerProcess({ DATABASE_URL: 'sqlite::memory:' });
    ({ clinicId, apiKey } = sandboxCredentials(server));
  });

  /** A partner call that must succeed: its `data`. */
  async function partner(route: string, body: Record<string, unknown>): Promise<any> {
    const res = await fetch(`${server.baseUrl}${route}`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
    });
    const answer = await res.json();
    if (!res.ok) throw new Error(`POST ${route} answered ${res.status}: ${JSON.stringify(answer)}`);
    return answer.data;
  }

  it('when it is the clinic’s endpoint and an order is created, then it prints the verified event on one line with its ids', async () => {
    const port = await freePort();
    const { secret } = await partner('/api/external/webhook', {
      clinic_id: clinicId,
      webhook_url: `http://127.0.0.1:${port}/webhooks`,
    });
    const receiver = await startReceiver(secret, port);

    const { practitioner_id: practitionerId } = await partner('/api/external/practitioner', practitionerBody(clinicId));
    const { patient_id: patientId } = await partner(
      '/api/external/patient',
      patientBody(clinicId, { practitioner_id: practitionerId }),
    );
    const { medication_request_id: orderId } = await partner(
      '/api/external/medication-order',
      orderBody({ clinic: { clinicId }, practitionerId, patientId }),
    );

    const line = await receiver.line(new RegExp(`^order\\.created .*medication_request_id=${orderId}`));
    expect(line).toMatch(
      new RegExp(
        `^order\\.created [0-9a-f-]{36} medication_request_id=${orderId} status=pending patient_id=${patientId} practitioner_id=${practitionerId}$`,
      ),
    );
    expect(receiver.stderr()).toBe('');
  });

  it('when a request is signed with another secret, then it answers 400, says why and prints no event', async () => {
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const receiver = await startReceiver(secret, await freePort());
    const forgedId = randomUUID();
    const genuineId = randomUUID();

    const forged = await deliver(receiver, forgedId, `whsec_${randomBytes(32).toString('base64')}`);
    expect(forged.status).toBe(400);
    expect(await receiver.line(/^refused /, 'stderr')).toBe('refused POST /webhooks: No matching signature found');

    // Requests are answered one after the other: once the next one is printed, the first never will be.
    const genuine = await deliver(receiver, genuineId, secret);
    expect(genuine.status).toBe(204);
    expect(await receiver.line(new RegExp(`^order\\.created ${genuineId}`))).toBe(`order.created ${genuineId}`);
    expect(receiver.stdout()).not.toContain(forgedId);
  });

  it('when RECEIVER_PORT is taken, then it says EADDRINUSE in one line and exits 1', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const child = spawnReceiver(`whsec_${randomBytes(32).toString('base64')}`, port);
      let err = '';
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      expect(code).toBe(1);
      expect(err).toBe(
        `EADDRINUSE: 127.0.0.1:${port} is already in use: stop what listens there, or choose another port with RECEIVER_PORT (and WEBHOOK_URL to match)\n`,
      );
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});
