import { randomUUID } from 'node:crypto';
import { attachRequestLogStore } from '../../src/db/request-log-store.js';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect, type LogEvent } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AuditContext } from '../../src/audit/audit-actor.js';
import { runChange, type ChangeContext } from '../../src/changes/run-change.js';
import { migrateToLatest } from '../../src/db/create-db.js';
import { CurrentSchemaPostgresDialect } from '../../src/db/current-schema-introspector.js';
import type { Database, Db, DbOrTrx, DialectName } from '../../src/db/database.js';
import { listenForNotifications } from '../../src/db/notifications.js';
import { OutboxNotifier, WAKEUP_CHANNEL } from '../../src/events/outbox-notifier.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../helpers/test-db.js';

const AT = '2026-11-25T12:00:00.000Z';

describe.each(DIALECTS)('runChange, the one way to write, on %s', (dialect: DialectName) => {
  let database: TestDatabase;
  let db: Db;
  let ctx: ChangeContext;
  /** Every statement sent to the database, BEGIN and COMMIT included. */
  const sent: string[] = [];
  /** For each in-process wake-up, how many statements had been sent when it came. */
  const wakeups: number[] = [];
  const log = (event: LogEvent) => void sent.push(event.query.sql);

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    if (database.config.kind === 'postgres') {
      const pool = new pg.Pool({
        connectionString: database.config.url,
        max: 2,
        options: `-c search_path=${database.schema ?? 'public'}`,
      });
      db = new Kysely<Database>({ dialect: new CurrentSchemaPostgresDialect({ pool }), log });
    } else {
      const sqlite = new SQLite(':memory:');
      sqlite.pragma('foreign_keys = ON');
      // As db/create-db.ts opens every SQLite database: the request log's store attached.
      attachRequestLogStore(sqlite, ':memory:');
      db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }), log });
    }
    await migrateToLatest(db, database.schema);
    const outbox = new OutboxNotifier();
    outbox.subscribe(() => wakeups.push(sent.length));
    ctx = { db, dialect, clock: () => new Date(AT), outbox };
  });
  afterAll(async () => {
    await db.destroy();
    await database.drop();
  });
  beforeEach(() => {
    sent.length = 0;
    wakeups.length = 0;
  });

  const clinic = (handle: DbOrTrx, id: string) =>
    handle.insertInto('clinics').values({ id, name: 'Clinic', free_shipping: 0, created_at: AT });
  const partner = (clinicId: string, extra: Partial<AuditContext> = {}): AuditContext => ({
    actor: { type: 'partner', apiKeyId: randomUUID(), clinicId },
    requestId: randomUUID(),
    clientAddress: '127.0.0.1',
    ...extra,
  });
  const event = (clinicId: string) => ({ clinicId, type: 'order.created' as const, payload: { status: 'pending' } });
  const count = async (table: 'clinics' | 'audit_events' | 'outbox_events', clinicId: string) => {
    const column = table === 'clinics' ? 'id' : 'clinic_id';
    return (await db.selectFrom(table).select('id').where(column, '=', clinicId).execute()).length;
  };
  async function heldKey(clinicId: string) {
    const id = randomUUID();
    const token = randomUUID();
    await db
      .insertInto('idempotency_keys')
      .values({
        id,
        clinic_id: clinicId,
        route: 'POST /x',
        idempotency_key: id,
        request_hash: 'h',
        state: 'in_progress',
        lock_token: token,
        locked_at: AT,
        request_id: 'r',
        response_status: null,
        response_content_type: null,
        response_body: null,
        response_key_id: null,
        created_at: AT,
        expires_at: AT,
      })
      .execute();
    return { id, token };
  }
  const keyState = async (id: string) =>
    (await db.selectFrom('idempotency_keys').select('state').where('id', '=', id).executeTakeFirstOrThrow()).state;

  it('when a change writes, audits and records an event, then all of it lands, with the actor, and the workers wake once after it', async () => {
    const id = randomUUID();
    const actor = partner(id);
    const eventId = await runChange(ctx, actor, (change) => {
      change.write(clinic(db, id));
      change.audit('create', { type: 'patient', id, clinicId: id });
      return change.event(event(id));
    });
    expect(await count('clinics', id)).toBe(1);
    const [row] = await db.selectFrom('audit_events').selectAll().where('clinic_id', '=', id).execute();
    expect(row).toMatchObject({
      at: AT,
      actor_type: 'partner',
      actor_id: actor.actor.type === 'partner' ? actor.actor.apiKeyId : '',
      action: 'create',
      request_id: actor.requestId,
    });
    const events = await db.selectFrom('outbox_events').select(['id', 'created_at']).where('clinic_id', '=', id).execute();
    expect(events).toEqual([{ id: eventId, created_at: AT }]);
    expect(wakeups).toHaveLength(1);
    // The wake-up came once every statement of the change had been answered (the commit included).
    const statementsOfChange = dialect === 'postgres' ? 1 : 5;
    expect(wakeups[0]).toBe(statementsOfChange);
  });

  it('when one write breaks a foreign key, then none of the change lands and nobody is woken', async () => {
    const id = randomUUID();
    const change = runChange(ctx, partner(id), (c) => {
      c.write(clinic(db, id));
      c.event(event(randomUUID()));
    });
    await expect(change).rejects.toThrow(/foreign key/i);
    expect(await count('clinics', id)).toBe(0);
    expect(await count('audit_events', id)).toBe(0);
    expect(wakeups).toEqual([]);
  });

  it('when the work fails after opening its transaction and writing in it, then nothing is committed and nobody is woken', async () => {
    const id = randomUUID();
    const change = runChange(ctx, partner(id), async (c) => {
      const trx = await c.transaction();
      await clinic(trx, id).execute();
      c.event(event(id));
      throw new Error('the change failed');
    });
    await expect(change).rejects.toThrow('the change failed');
    expect(await count('clinics', id)).toBe(0);
    expect(await count('outbox_events', id)).toBe(0);
    expect(wakeups).toEqual([]);
  });

  it('when the request holds an Idempotency-Key, then its change marks it carried out, and a failed change leaves it held', async () => {
    const owner = randomUUID();
    await clinic(db, owner).execute();
    const key = await heldKey(owner);
    const id = randomUUID();
    await runChange(ctx, partner(owner, { idempotencyClaim: key }), (c) => c.write(clinic(db, id)));
    expect(await keyState(key.id)).toBe('executed');

    const other = await heldKey(owner);
    const failing = runChange(ctx, partner(owner, { idempotencyClaim: other }), (c) => c.write(clinic(db, id)));
    await expect(failing).rejects.toThrow();
    expect(await keyState(other.id)).toBe('in_progress');
  });

  it.runIf(dialect === 'postgres')(
    'when a change never opens its transaction, then PostgreSQL is asked once, idempotency mark included: no BEGIN, no COMMIT',
    async () => {
      const owner = randomUUID();
      await clinic(db, owner).execute();
      const key = await heldKey(owner);
      sent.length = 0;
      await runChange(ctx, partner(owner, { idempotencyClaim: key }), (c) => {
        c.write(clinic(db, randomUUID()));
        c.audit('create', { type: 'patient', id: owner, clinicId: owner });
        c.event(event(owner));
      });
      expect(sent).toHaveLength(1);
      expect(sent[0]).toMatch(/^with "write_0" as \(insert into "clinics".*"write_3" as \(update "idempotency_keys"/s);
    },
  );

  it.runIf(dialect === 'postgres')(
    'when a change opens its transaction, then its kept rows go as one statement before COMMIT',
    async () => {
      const id = randomUUID();
      await runChange(ctx, partner(id), async (c) => {
        const trx = await c.transaction();
        await trx.selectFrom('clinics').select('id').limit(1).execute();
        c.write(clinic(db, id));
        c.audit('create', { type: 'patient', id, clinicId: id });
      });
      expect(sent.map((statement) => statement.split(' ')[0]?.toLowerCase())).toEqual(['begin', 'select', 'with', 'commit']);
    },
  );

  it.runIf(dialect === 'sqlite')('when a change writes, then SQLite runs its rows in order in one transaction', async () => {
    const id = randomUUID();
    await runChange(ctx, partner(id), (c) => {
      c.write(clinic(db, id));
      c.audit('create', { type: 'patient', id, clinicId: id });
    });
    expect(sent.map((statement) => statement.split(' ').slice(0, 3).join(' ').toLowerCase())).toEqual([
      'begin',
      'insert into "clinics"',
      'insert into "audit_events"',
      'commit',
    ]);
  });

  it('when a change writes nothing and opens nothing, then the database is not asked at all', async () => {
    await runChange(ctx, partner(randomUUID()), () => undefined);
    expect(sent).toEqual([]);
    expect(wakeups).toEqual([]);
  });

  it('when a change has no actor, then it has no audit at all, and still writes and wakes', async () => {
    const id = randomUUID();
    await runChange(ctx, null, (c) => {
      expect('audit' in c).toBe(false);
      c.write(clinic(db, id));
      c.wakeWorkers();
    });
    expect(await count('clinics', id)).toBe(1);
    expect(await count('audit_events', id)).toBe(0);
    expect(wakeups).toHaveLength(1);
  });

  it.runIf(dialect === 'postgres')(
    'when a change records an event or asks for a wake-up, then workers of other processes get a NOTIFY at commit',
    async () => {
      const woken: (() => void)[] = [];
      let notified = 0;
      const nextWakeup = () => new Promise<void>((resolve) => woken.push(resolve));
      const connected = nextWakeup();
      const listener = await listenForNotifications(
        { ...ctx, config: { database: database.config } } as never,
        WAKEUP_CHANNEL,
        () => {
          notified += 1;
          woken.shift()?.();
        },
      );
      try {
        await connected; // the listener looks once when it connects
        const owner = randomUUID();
        await clinic(db, owner).execute();
        const afterEvent = nextWakeup();
        await runChange(ctx, partner(owner), (c) => void c.event(event(owner)));
        await afterEvent;
        const afterRequest = nextWakeup();
        await runChange(ctx, null, (c) => c.wakeWorkers());
        await afterRequest;
        const afterRequestInTransaction = nextWakeup();
        await runChange(ctx, null, async (c) => {
          await c.transaction();
          c.wakeWorkers();
        });
        await afterRequestInTransaction;
        expect(notified).toBe(4);
      } finally {
        await listener.close();
      }
    },
  );
});
