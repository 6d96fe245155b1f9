// The Fastify app both raw-database ceilings serve: POST /api/external/medication-order validated
// against the project's own TypeBox schema (from the compiled server), then written by `writeOrder`.
import { URL } from 'node:url';
import process from 'node:process';
import Fastify from 'fastify';
import { ORDER } from './project-modules.js';

/**
 * Listens on 127.0.0.1 (PORT, 0 by default) and prints `listening on <port>` once it does.
 * `writeOrder(body)` resolves with the new order's id.
 */
export async function serveOrders(writeOrder, close) {
  // Fastify's own Ajv with its defaults, except: the project's schemas carry annotations of their
  // own (x-message, x-aliases, …) that strict mode would refuse, and unknown fields are refused as
  // the project does, not silently removed.
  const app = Fastify({ logger: false, ajv: { customOptions: { strict: false, removeAdditional: false } } });
  app.post('/api/external/medication-order', { schema: { body: ORDER.body } }, async (request) => {
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
