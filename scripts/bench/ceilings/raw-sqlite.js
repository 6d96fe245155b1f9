// Ceiling: Fastify validating the order body and writing it with better-sqlite3 directly, durable
// as the project is (WAL, synchronous = NORMAL: src/db/create-db.ts), with prepared statements and
// one transaction of five inserts. Run as a child of the benchmark: BENCH_SQLITE_FILE is its database.
import process from 'node:process';
import Database from 'better-sqlite3';
import { serveOrders } from './order-app.js';
import { CREATE_TABLES, INSERTS, orderRows } from './order-tables.js';

const db = new Database(process.env.BENCH_SQLITE_FILE);
db.pragma('journal_mode = WAL');
db.pragma('foreign_keys = ON');
db.pragma('busy_timeout = 5000');
db.pragma('synchronous = NORMAL');
for (const statement of CREATE_TABLES) db.exec(statement);

const prepared = Object.fromEntries(Object.entries(INSERTS).map(([name, sql]) => [name, db.prepare(sql)]));
const insertOrder = db.transaction((rows) => {
  prepared.order.run(rows.order);
  prepared.prescription.run(rows.prescription);
  prepared.item.run(rows.item);
  prepared.history.run(rows.history);
  prepared.outbox.run(rows.outbox);
});

await serveOrders(
  async (body) => {
    const rows = orderRows(body);
    insertOrder(rows);
    return rows.orderId;
  },
  async () => db.close(),
);
