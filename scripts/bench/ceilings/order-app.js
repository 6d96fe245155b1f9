// The Fastify app both raw-database ceilings serve: POST /api/external/medication-order validated
// against the project's own TypeBox schema (from the compiled server), then written by `writeOrder`.
import { URL } from 'node:url';
import path from 'node:path';
import process from 'node:process';
import { pathToFileURL } from 'node:url';
import Fastify from 'fastify';

/** The compiled server's folder (dist/ or the test build), given by the benchmark. */
const DIST = process.env.BENCH_DIST;

/**
 * Listens on 127.0.0.1 (PORT, 0 by default) and prints `listening on <port>` once it does.
 * `writeOrder(body)` resolves with the new order's id.
 */
export async function serveOrders(writeOrder, close) {
  const schemas = path.join(DIST, 'medication-requests', 'medication-request.schemas.js');
  const { CreateMedicationRequestBody } = await import(pathToFileURL(schemas).href);
  // Fastify's own Ajv with its defaults, except: the project's schemas carry annotations of their
  // own (x-message, x-aliases, …) that strict mode would refuse, and unknown fields are refused as
  // the project does, not silently removed.
  const app = Fastify({ logger: false, ajv: { customOptions: { strict: false, removeAdditional: false } } });
  app.post('/api/external/medication-order', { schema: { body: CreateMedicationRequestBody } }, async (request) => {
    const orderId = await writeOrder(request.body);
    return { success: true, data: { medication_request_id: orderId }, message: 'Medication request created' };
  });
  const address = await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) });
  process.stdout.write(`listening on ${new URL(address).port}\n`);
  process.once('SIGTERM', () => {
    app
      .close()
      .then(close)
      .then(
        () => process.exit(0),
        () => process.exit(1),
      );
  });
}
