// Ceiling: Fastify validating the order body and writing it with pg directly (a pool of 10, as the
// project's), five inserts in one BEGIN/COMMIT transaction: seven round trips. Run as a child of
// the benchmark: BENCH_PG_URL is a database of its own, created and dropped by the benchmark.
import process from 'node:process';
import pg from 'pg';
import { serveOrders } from './order-app.js';
import { CREATE_TABLES, INSERTS, numbered, orderRows } from './order-tables.js';

const pool = new pg.Pool({ connectionString: process.env.BENCH_PG_URL, max: 10 });
for (const statement of CREATE_TABLES) await pool.query(statement);

// Named statements: pg prepares each once per connection, as a driver-level statement cache would.
const statements = Object.fromEntries(
  Object.entries(INSERTS).map(([name, sql]) => [name, { name: `bench_${name}`, text: numbered(sql) }]),
);
const run = (client, name, values) => client.query({ ...statements[name], values });

await serveOrders(
  async (body) => {
    const rows = orderRows(body);
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      for (const name of ['order', 'prescription', 'item', 'history', 'outbox']) await run(client, name, rows[name]);
      await client.query('COMMIT');
      return rows.orderId;
    } catch (error) {
      // The transaction's own error is the one to report; a failed ROLLBACK adds nothing.
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  },
  () => pool.end(),
);
