import type { ControlledTransaction } from 'kysely';
import { isoNow, type Clock } from '../clock.js';
import type { AuditContext } from '../audit/audit-actor.js';
import { auditRow } from '../audit/audit-row.js';
import type { AuditAction, AuditedResource } from '../audit/audit-vocabulary.js';
import { auditInserts } from '../audit/audit.repository.js';
import type { Database, Db, DialectName, Trx } from '../db/database.js';
import { notifyAtCommit } from '../db/dialect.js';
import { runWritesDirectly } from '../db/direct-statement.js';
import { runOneStatement, writesAsOneStatement } from '../db/one-statement.js';
import type { Write } from '../db/write.js';
import type { NewOutboxEvent } from '../events/event-types.js';
import { WAKEUP_CHANNEL, type OutboxNotifier } from '../events/outbox-notifier.js';
import { newId } from '../shared/ids.js';
import { eventInsert, keyExecutedWrite } from './change-rows.js';

/** What running a change needs: the database, the clock, and the in-process wake-up of the delivery worker. */
export interface ChangeContext {
  readonly db: Db;
  readonly dialect: DialectName;
  readonly clock: Clock;
  readonly outbox: OutboxNotifier;
}

/**
 * One change to the data, all or nothing: the only way to write rows together, record outbox events
 * and record changes in the audit trail (nothing else exports their inserts: change-rows.ts).
 *
 * - `transaction()` opens the change's transaction (once) for what must run at once: reads, and
 *   writes whose result the change needs (a conditional update, a counted refill).
 * - `write()`, `audit()`, `event()`, and the request's idempotency mark are kept and run after the
 *   work, in that order, in the same transaction: a kept write may refer to a row written at once,
 *   never the other way round.
 */
export interface SystemChange {
  /** When the change happens: the clock, read once when it starts. */
  readonly at: string;
  /** The change's transaction, opened on first call. */
  transaction(): Promise<Trx>;
  /** Writes (built on any handle: they are compiled, not run, here) that read nothing from the change. */
  write(...writes: Write[]): void;
  /** An outbox event, delivered to the clinic's webhooks once committed (`createdAt` defaults to `at`). Returns its id. */
  event(event: NewOutboxEvent, createdAt?: string): string;
  /** Wakes the delivery workers once committed (a change to the delivery queue without an event). */
  wakeWorkers(): void;
}

/** A change made by someone (a partner's key, a staff member, the operator token): it is in the trail. */
export interface Change extends SystemChange {
  /** Records in the audit trail that the change's actor did `action` to each of `resources`. */
  audit(action: AuditAction, ...resources: AuditedResource[]): void;
}

/**
 * Runs `work` as one change by `actor` (null: the system itself, which audits nothing: the sandbox,
 * a re-encryption), then wakes the delivery workers if it recorded an event or asked to. An actor's
 * idempotency claim is marked carried out in the same transaction, so a retry never runs it twice.
 *
 * On PostgreSQL a change that never opened its transaction is sent as one statement, each write a
 * data-modifying CTE: atomic without BEGIN and COMMIT, one round trip instead of n + 2. One that
 * opened it sends its kept rows in one statement too, before COMMIT.
 */
export async function runChange<T>(ctx: ChangeContext, actor: AuditContext, work: (change: Change) => T | Promise<T>): Promise<T>;
export async function runChange<T>(ctx: ChangeContext, actor: null, work: (change: SystemChange) => T | Promise<T>): Promise<T>;
/** An actor that may be absent (a first account made from the command line): `audit` is there only with one. */
export async function runChange<T>(
  ctx: ChangeContext,
  actor: AuditContext | null,
  work: (change: SystemChange & Partial<Pick<Change, 'audit'>>) => T | Promise<T>,
): Promise<T>;
export async function runChange<T>(
  ctx: ChangeContext,
  actor: AuditContext | null,
  work: (change: Change) => T | Promise<T>,
): Promise<T> {
  const run = new ChangeRun(ctx, actor);
  let result: T;
  try {
    // Without an actor the work is handed a change with no `audit` at all (the overloads type it so).
    result = await work(actor === null ? (run.withoutActor() as Change) : run);
    await run.commit();
  } catch (error) {
    await run.rollback();
    throw error;
  }
  if (run.wakes) ctx.outbox.notify();
  return result;
}

class ChangeRun implements Change {
  readonly at: string;
  wakes = false;
  private readonly writes: Write[] = [];
  private readonly auditRows: ReturnType<typeof auditRow>[] = [];
  private readonly events: Parameters<typeof eventInsert>[1] = [];
  private opened: Promise<ControlledTransaction<Database>> | undefined;
  private notifyOthers = false;

  constructor(
    private readonly ctx: ChangeContext,
    private readonly actor: AuditContext | null,
  ) {
    this.at = isoNow(ctx.clock);
  }

  transaction(): Promise<Trx> {
    this.opened ??= this.ctx.db.startTransaction().execute();
    return this.opened;
  }

  private begun(): Promise<ControlledTransaction<Database>> {
    this.opened ??= this.ctx.db.startTransaction().execute();
    return this.opened;
  }

  /** The change as a system change sees it: no `audit` at all. */
  withoutActor(): SystemChange {
    return {
      at: this.at,
      transaction: () => this.transaction(),
      write: (...writes) => this.write(...writes),
      event: (event, createdAt) => this.event(event, createdAt),
      wakeWorkers: () => this.wakeWorkers(),
    };
  }

  write(...writes: Write[]): void {
    this.writes.push(...writes);
  }

  audit(action: AuditAction, ...resources: AuditedResource[]): void {
    if (this.actor === null) throw new Error('A system change has no actor to record in the audit trail');
    for (const resource of resources) this.auditRows.push(auditRow(this.at, this.actor, action, resource));
  }

  event(event: NewOutboxEvent, createdAt: string = this.at): string {
    const id = newId();
    this.events.push({ id, createdAt, event });
    this.wakes = true;
    return id;
  }

  wakeWorkers(): void {
    this.wakes = true;
    this.notifyOthers = true;
  }

  /** The kept rows, in order: the writes, the trail, the events, the idempotency mark. */
  private keptWrites(): Write[] {
    const db = this.ctx.db;
    const kept = [...this.writes];
    if (this.auditRows.length > 0) kept.push(...auditInserts(db, this.auditRows));
    if (this.events.length > 0) kept.push(eventInsert(db, this.events));
    const claim = this.actor?.idempotencyClaim;
    if (claim && (kept.length > 0 || this.opened !== undefined)) kept.push(keyExecutedWrite(db, claim));
    return kept;
  }

  async commit(): Promise<void> {
    const kept = this.keptWrites();
    const { dialect } = this.ctx;
    if (this.opened === undefined && dialect === 'postgres') {
      if (kept.length === 0 && !this.notifyOthers) return;
      // Events wake other processes through migration 003's trigger; a queue change says so itself.
      const statement = writesAsOneStatement(
        kept.map((write) => write.compile()),
        this.notifyOthers ? WAKEUP_CHANNEL : null,
      );
      await runOneStatement(this.ctx.db, statement);
      return;
    }
    if (this.opened === undefined && kept.length === 0) return;
    // SQLite, nothing read: the rows in one synchronous transaction, unless another is open.
    if (
      this.opened === undefined &&
      runWritesDirectly(
        this.ctx.db,
        kept.map((write) => write.compile()),
      )
    )
      return;
    const trx = await this.begun();
    if (dialect === 'postgres' && kept.length > 1) {
      await runOneStatement(
        trx,
        writesAsOneStatement(
          kept.map((write) => write.compile()),
          null,
        ),
      );
    } else {
      for (const write of kept) await trx.executeQuery(write.compile());
    }
    if (this.notifyOthers) await notifyAtCommit(trx, dialect, WAKEUP_CHANNEL);
    await trx.commit().execute();
  }

  /** Undoes what ran (never throws: the work's own error is the one the caller must see). */
  async rollback(): Promise<void> {
    if (this.opened === undefined) return;
    const trx = await this.opened.catch(() => undefined);
    if (trx === undefined || trx.isCommitted || trx.isRolledBack) return;
    await trx
      .rollback()
      .execute()
      .catch(() => undefined);
  }
}
