import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import type { DialectName } from '../../src/db/database.js';
import { itemBody, orderBody, type OrderSetup } from '../helpers/factories.js';
import { freshProcessDatabase, inDatabase, type ProcessDatabase } from '../helpers/process-database.js';
import { killServerProcesses, type ServerProcess } from '../helpers/server-process.js';
import { DIALECTS } from '../helpers/test-db.js';
import { call } from '../instances/support.js';
import { createOrderingPartner, startProductionServer } from './partner-server.js';
import { seededRandom } from '../helpers/seeded-random.js';

/**
 * Nothing acknowledged is lost, nothing is created twice (issue 9, item 8). Several clients create
 * orders, each request with an Idempotency-Key of its own, and keep a ledger of what the server
 * acknowledged; the server is killed with SIGKILL at random moments (a seeded random number of
 * acknowledgements after each start) and restarted on the same database. Then: every acknowledged
 * order is there with its items and exactly one `order.created` event; every request that got no
 * answer, retried with its key, is created at most once (exactly once, in fact, once its key's lock
 * has expired). Finally the server is killed once more and the database is read directly: SQLite's
 * file, last written by a killed process, passes `PRAGMA integrity_check`.
 *
 * Each request carries its key in its items' `direction`, so that the database itself says which
 * request each order came from, whatever the clients saw.
 */

const CLIENTS = 4;
const KILLS = 3;
const ORDER = '/api/external/medication-order';
/** Short, so that a key whose request died with its process is free again within the test. */
const LOCK_TIMEOUT_MS = 1_500;

afterAll(killServerProcesses);

interface LedgerEntry {
  key: string;
  body: Record<string, unknown>;
  /** How many medication items the request holds. */
  items: number;
  /** The order id the server acknowledged (a 200 with its body), if it did. */
  acknowledged?: string;
  /** What the retry after the crashes ended with. */
  retried?: { status: number; id?: string; replayed: boolean };
}

/** The running server, or a promise of the next one while it is down. */
class Restartable {
  private server: ServerProcess | null = null;
  private next: Promise<ServerProcess>;
  private resolveNext!: (server: ServerProcess) => void;
  starts = 0;

  constructor(private readonly startOne: () => Promise<ServerProcess>) {
    this.next = this.pending();
  }

  private pending(): Promise<ServerProcess> {
    return new Promise((resolve) => (this.resolveNext = resolve));
  }

  async start(): Promise<ServerProcess> {
    const server = await this.startOne();
    this.starts += 1;
    this.server = server;
    this.resolveNext(server);
    return server;
  }

  /** The server clients should call: the running one, or the next one to start. */
  current(): Promise<ServerProcess> {
    return this.server ? Promise.resolve(this.server) : this.next;
  }

  async kill(): Promise<void> {
    const server = this.server;
    if (!server) throw new Error('no server to kill');
    this.server = null;
    this.next = this.pending();
    expect(await server.stop('SIGKILL')).toBeNull();
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    await server?.stop('SIGTERM');
  }
}

/** POST of an order with its key: the answer, or null when the connection failed (the server died). */
async function sendOrder(
  server: ServerProcess,
  partner: OrderSetup,
  entry: LedgerEntry,
): Promise<{ status: number; body: any; headers: Headers } | null> {
  try {
    const response = await fetch(`${server.baseUrl}${ORDER}`, {
      method: 'POST',
      headers: {
        'x-forwarded-proto': 'https',
        'x-api-key': partner.clinic.apiKey,
        'content-type': 'application/json',
        'idempotency-key': entry.key,
      },
      body: JSON.stringify(entry.body),
    });
    return { status: response.status, body: await response.json(), headers: response.headers };
  } catch {
    return null;
  }
}

function newEntry(partner: OrderSetup, key: string, random: () => number): LedgerEntry {
  const items = 1 + Math.floor(random() * 3);
  const medication_requests = Array.from({ length: items }, (_, i) => itemBody({ direction: `Inject weekly [${key}/${i}]` }));
  return { key, items, body: orderBody(partner, { medication_requests }) };
}

/** The request key a stored item came from (see newEntry). */
const keyOfDirection = (direction: string): string | undefined => /\[([^\]/]+)\/\d+\]$/.exec(direction)?.[1];

describe.each(DIALECTS)('kill -9 while clients create orders on %s', (dialect: DialectName) => {
  it(`when the server is killed ${KILLS} times mid-traffic and restarted, then every acknowledged order is there once with its items and one order.created event, and retries create nothing twice`, async () => {
    const database: ProcessDatabase = await freshProcessDatabase(dialect, `crash-${dialect}`);
    const random = seededRandom(dialect === 'sqlite' ? 9_001 : 9_002);
    const server = new Restartable(() =>
      startProductionServer(database, {
        RUN_WORKER: 'false',
        WEBHOOK_TIMEOUT_MS: '1000',
        IDEMPOTENCY_LOCK_TIMEOUT_MS: String(LOCK_TIMEOUT_MS),
      }),
    );
    try {
      const partner = await createOrderingPartner(await server.start());
      const ledger: LedgerEntry[] = [];
      const unexpected: string[] = [];
      let acknowledged = 0;
      let ackWaiter: { count: number; resolve: () => void } | null = null;
      const state = { running: true };

      const client = async (id: number): Promise<void> => {
        for (let n = 0; state.running; n++) {
          const entry = newEntry(partner, `c${id}-${n}`, random);
          ledger.push(entry);
          const answer = await sendOrder(await server.current(), partner, entry);
          if (answer === null) continue; // the server died under this request: retried below
          if (answer.status !== 200) {
            unexpected.push(`${entry.key}: ${answer.status} ${JSON.stringify(answer.body)}`);
            continue;
          }
          entry.acknowledged = answer.body.data.medication_request_id;
          acknowledged += 1;
          if (ackWaiter && acknowledged >= ackWaiter.count) ackWaiter.resolve();
        }
      };
      const acknowledgements = (count: number) =>
        new Promise<void>((resolve) => {
          if (acknowledged >= count) resolve();
          else ackWaiter = { count, resolve };
        });

      const clients = Array.from({ length: CLIENTS }, (_, id) => client(id));
      for (let kill = 0; kill < KILLS; kill++) {
        // A random moment: between 5 and 40 acknowledgements after the start, then up to 20 ms more.
        await acknowledgements(acknowledged + 5 + Math.floor(random() * 35));
        await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 20)));
        await server.kill();
        await server.start();
      }
      await acknowledgements(acknowledged + 10);
      state.running = false;
      await Promise.all(clients);
      expect(unexpected).toEqual([]);
      expect(server.starts).toBe(KILLS + 1);

      const live = await server.current();
      // Every acknowledged order reads back with its items.
      for (const entry of ledger.filter((e) => e.acknowledged)) {
        const read = await call(live, 'GET', `${ORDER}/${entry.acknowledged!}`, { apiKey: partner.clinic.apiKey });
        expect(read.status, entry.key).toBe(200);
        expect(
          read.body.data.medication_requests.map((item: { direction: string }) => item.direction),
          entry.key,
        ).toEqual(Array.from({ length: entry.items }, (_, i) => `Inject weekly [${entry.key}/${i}]`));
      }

      // Every request retried with its key: a replay of what was acknowledged, and for the rest the
      // first execution's result, or a first execution once a dead request's lock has expired.
      for (const entry of ledger) {
        for (let attempt = 0; ; attempt++) {
          const answer = await sendOrder(live, partner, entry);
          if (answer === null) throw new Error(`${entry.key}: no answer from the restarted server`);
          const inFlight = answer.status === 409 && answer.headers.get('retry-after') !== null;
          if (inFlight && attempt < 20) {
            await new Promise((resolve) => setTimeout(resolve, LOCK_TIMEOUT_MS / 3));
            continue;
          }
          entry.retried = {
            status: answer.status,
            replayed: answer.headers.get('idempotent-replayed') === 'true',
            ...(answer.status === 200 ? { id: answer.body.data.medication_request_id } : {}),
          };
          if (answer.status !== 200) expect(answer.body.error.message, entry.key).toMatch(/carried out, but its answer was lost/);
          break;
        }
        if (entry.acknowledged) expect(entry.retried, entry.key).toEqual({ status: 200, id: entry.acknowledged, replayed: true });
      }
      const lost = ledger.filter((e) => !e.acknowledged);
      expect(lost.length, 'requests cut off by a kill').toBeGreaterThan(0);
      await server.kill();

      // What the database holds: per request key, its orders, their items and their order.created events.
      const stored = await inDatabase(database, async (db) => {
        const items = await db
          .selectFrom('medication_items as i')
          .innerJoin('prescriptions as p', 'p.id', 'i.prescription_id')
          .select(['p.medication_request_id as orderId', 'i.direction'])
          .execute();
        const orders = await db.selectFrom('medication_requests').select('id').execute();
        const created = await db.selectFrom('outbox_events').select('payload').where('type', '=', 'order.created').execute();
        const integrity =
          dialect === 'sqlite' ? (await sql<{ integrity_check: string }>`pragma integrity_check`.execute(db)).rows : null;
        return { items, orders, created, integrity };
      });
      const ordersOfKey = new Map<string, Set<string>>();
      for (const item of stored.items) {
        const key = keyOfDirection(item.direction);
        expect(key, `an item of order ${item.orderId} from no request`).toBeDefined();
        const set = ordersOfKey.get(key!) ?? new Set<string>();
        set.add(item.orderId);
        ordersOfKey.set(key!, set);
      }
      const createdEvents = new Map<string, number>();
      for (const event of stored.created) {
        const id = (JSON.parse(event.payload) as { medication_request_id: string }).medication_request_id;
        createdEvents.set(id, (createdEvents.get(id) ?? 0) + 1);
      }

      for (const entry of ledger) {
        // At most once, and here exactly once: every retry ended with the request carried out.
        const orders = [...(ordersOfKey.get(entry.key) ?? [])];
        expect(orders, entry.key).toHaveLength(1);
        const [orderId] = orders as [string];
        if (entry.acknowledged) expect(orderId, entry.key).toBe(entry.acknowledged);
        if (entry.retried?.id) expect(orderId, entry.key).toBe(entry.retried.id);
        expect(createdEvents.get(orderId), `order.created events of ${entry.key}`).toBe(1);
      }
      // Nothing else: every order and every event belongs to one request of the ledger.
      expect(stored.orders).toHaveLength(ledger.length);
      expect(stored.created).toHaveLength(ledger.length);
      if (stored.integrity) expect(stored.integrity).toEqual([{ integrity_check: 'ok' }]);
    } finally {
      await server.stop();
      await database.drop();
    }
  });
});
