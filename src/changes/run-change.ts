import { isoNow, type Clock } from '../clock.js';
import type { AuditContext } from '../audit/audit-actor.js';
import { auditRow } from '../audit/audit-row.js';
import type { AuditAction, AuditedResource } from '../audit/audit-vocabulary.js';
import { auditInserts } from '../audit/audit.repository.js';
import type { Trx } from '../db/database.js';
import { executeChange, undoChange, type ChangeDatabase, type OpenedTransaction } from '../db/execute-change.js';
import type { StatementBuilder, Write, WriteTarget } from '../db/write.js';
import type { NewOutboxEvent } from '../events/event-types.js';
import { WAKEUP_CHANNEL, type OutboxNotifier } from '../events/outbox-notifier.js';
import { newId } from '../shared/ids.js';
import { eventInsert, keyExecutedWrite } from './change-rows.repository.js';

/** What running a change needs: the database, the clock, and the in-process wake-up of the delivery worker. */
export interface ChangeContext extends ChangeDatabase {
  readonly clock: Clock;
  readonly outbox: OutboxNotifier;
}

/**
 * One change to the data, all or nothing: the only way to write rows together, record outbox events
 * and record changes in the audit trail (nothing else exports their inserts: change-rows.repository.ts).
 *
 * - `transaction()` opens the change's transaction (once) for what must run at once: reads, and
 *   writes whose result the change needs (a conditional update, a counted refill).
 * - `write()`, `audit()`, `event()`, and the request's idempotency mark are kept and run after the
 *   work, in that order, in the same transaction: a kept write may refer to a row written at once,
 *   never the other way round.
 *
 * Write builders take the change (`WriteTarget`): it carries what they build with.
 */
export interface SystemChange extends WriteTarget {
  /** When the change happens: the clock, read once when it starts. */
  readonly at: string;
  /** The change's transaction, opened on first call. */
  transaction(): Promise<Trx>;
  /** Writes (built with `statements`: compiled, not run, here) that read nothing from the change. */
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
 * How the change reaches the database is db/execute-change.ts's to decide.
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
    await executeChange(ctx, run.opened, run.keptWrites(), run.notifyOthers ? WAKEUP_CHANNEL : null);
  } catch (error) {
    await undoChange(run.opened);
    throw error;
  }
  if (run.wakes) ctx.outbox.notify();
  return result;
}

class ChangeRun implements Change {
  readonly at: string;
  readonly statements: StatementBuilder;
  wakes = false;
  /** Other processes' delivery workers are woken at commit too (a queue change without an event). */
  notifyOthers = false;
  opened: OpenedTransaction;
  private readonly writes: Write[] = [];
  private readonly auditRows: ReturnType<typeof auditRow>[] = [];
  private readonly events: Parameters<typeof eventInsert>[1] = [];

  constructor(
    private readonly ctx: ChangeContext,
    private readonly actor: AuditContext | null,
  ) {
    this.at = isoNow(ctx.clock);
    this.statements = ctx.db;
  }

  transaction(): Promise<Trx> {
    this.opened ??= this.ctx.db.startTransaction().execute();
    return this.opened;
  }

  /** The change as a system change sees it: no `audit` at all. */
  withoutActor(): SystemChange {
    return {
      at: this.at,
      statements: this.statements,
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
  keptWrites(): Write[] {
    const kept = [...this.writes];
    if (this.auditRows.length > 0) kept.push(...auditInserts(this, this.auditRows));
    if (this.events.length > 0) kept.push(eventInsert(this, this.events));
    const claim = this.actor?.idempotencyClaim;
    if (claim && (kept.length > 0 || this.opened !== undefined)) kept.push(keyExecutedWrite(this, claim));
    return kept;
  }
}
