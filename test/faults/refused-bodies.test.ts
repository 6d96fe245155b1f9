import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LINGERING_CLOSE } from '../../src/config.js';
import { freshProcessDatabase, type ProcessDatabase } from '../helpers/process-database.js';
import { openRawConnection, parseRawResponse, within } from '../helpers/raw-connection.js';
import { FORWARDED_HTTPS, killServerProcesses, type ServerProcess } from '../helpers/server-process.js';
import { DIALECTS } from '../helpers/test-db.js';
import { createPartner } from '../instances/support.js';
import { startProductionServer } from './partner-server.js';

/**
 * A refused request always gets its answer (issue 28, item 5): a partner posting a 5 MB body gets
 * the 413 envelope every time, from a plain `fetch` that does not retry, on a production server
 * process on SQLite and on PostgreSQL (the server reads and discards the rest of the body before it
 * closes: src/http/lingering-close.ts). And the discarding is bounded: a client that keeps sending
 * past LINGERING_CLOSE.maxBytes is cut off. Its time cap is in test/http/lingering-close.test.ts.
 */
const TRIES = 50;
const BODY = JSON.stringify({ first_name: 'Grace', notes: 'a'.repeat(5 * 1024 * 1024) });
/** A generous bound on the byte cap's cut-off, shorter than LINGERING_CLOSE.maxMs: the time cap did not do it. */
const CUT_OFF_WITHIN_MS = 20_000;

afterAll(killServerProcesses);

for (const dialect of DIALECTS) {
  describe(`refused bodies on a production server process on ${dialect}`, () => {
    let database: ProcessDatabase;
    let server: ServerProcess;
    let partner: { clinicId: string; apiKey: string };

    beforeAll(async () => {
      database = await freshProcessDatabase(dialect, 'refused-bodies');
      // No request timeout within reach: only the lingering close's bounds can cut a client off.
      server = await startProductionServer(database, { HEADERS_TIMEOUT_MS: '600000', REQUEST_TIMEOUT_MS: '600000' });
      partner = await createPartner(server);
    });
    afterAll(async () => {
      await server.stop();
      await database.drop();
    });

    it(`when a partner posts a 5 MB body ${TRIES} times with fetch, without retrying, then it gets ${TRIES} 413 envelopes`, async () => {
      const envelopes: unknown[] = [];
      const failures: string[] = [];
      for (let i = 0; i < TRIES; i++) {
        try {
          const response = await fetch(`${server.baseUrl}/api/external/patient`, {
            method: 'POST',
            headers: {
              ...FORWARDED_HTTPS,
              'x-api-key': partner.apiKey,
              'content-type': 'application/json',
              accept: 'application/json',
            },
            body: BODY,
          });
          const body = await response.json();
          if (response.status === 413 && body.error?.code === 'PAYLOAD_TOO_LARGE') envelopes.push(body);
          else failures.push(`${response.status} ${JSON.stringify(body)}`);
        } catch (error) {
          failures.push(String((error as Error).cause ?? error));
        }
      }
      expect(failures).toEqual([]);
      expect(envelopes).toHaveLength(TRIES);
      expect(envelopes[0]).toEqual({
        success: false,
        error: { message: expect.any(String), code: 'PAYLOAD_TOO_LARGE', request_id: expect.any(String) },
      });
    });

    it('when a client keeps sending a body without end past the byte cap after its 413, then it is cut off', async () => {
      const connection = await openRawConnection(server.baseUrl, { allowHalfOpen: true });
      const { socket } = connection;
      socket.write(
        `POST /api/external/patient HTTP/1.1\r\nHost: x\r\nx-forwarded-proto: https\r\nx-api-key: ${partner.apiKey}\r\n` +
          `content-type: application/json\r\ncontent-length: ${1024 ** 4}\r\n\r\n`,
      );
      // The answer comes on the headers alone. Read it before sending on: a client that has not read
      // it when it is cut off loses it to the reset (its system drops what it had not read), and
      // Node's writes that the system takes at once never let the event loop read in between.
      await within(connection.waitFor(/PAYLOAD_TOO_LARGE/), CUT_OFF_WITHIN_MS, 'the 413');
      const chunk = Buffer.alloc(64 * 1024, 'a');
      let written = 0;
      const sendUntilCutOff = async () => {
        while (!socket.destroyed && socket.writable) {
          const failed = await new Promise<boolean>((resolve) => socket.write(chunk, (error) => resolve(error != null)));
          if (failed) break;
          written += chunk.length;
        }
        return connection.closed;
      };
      const answer = parseRawResponse(await within(sendUntilCutOff(), CUT_OFF_WITHIN_MS, 'the cut-off'));
      expect(answer.status).toBe(413);
      expect(answer.headers.connection).toBe('close');
      expect(answer.body.error.code).toBe('PAYLOAD_TOO_LARGE');
      expect(written).toBeGreaterThan(LINGERING_CLOSE.maxBytes);
    });
  });
}
