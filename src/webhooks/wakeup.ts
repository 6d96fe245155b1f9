import { sql } from 'kysely';
import pg from 'pg';
import type { EventWriterContext, ServiceContext } from '../context.js';

/**
 * Wake-ups of delivery workers. In-process: the OutboxNotifier. Across processes on PostgreSQL:
 * NOTIFY on the `webhook_wakeup` channel with the schema as payload; migration 003 installs a
 * trigger that sends it when outbox events are committed, and `wakeWorkers` sends it for the
 * operator's retries. SQLite is single-process: the notifier is enough.
 */
export const WAKEUP_CHANNEL = 'webhook_wakeup';

/** Wakes the workers of this process and, on PostgreSQL, of every other process. */
export async function wakeWorkers(ctx: EventWriterContext): Promise<void> {
  ctx.outbox.notify();
  if (ctx.dialect === 'postgres') await sql`select pg_notify(${WAKEUP_CHANNEL}, current_schema())`.execute(ctx.db);
}

export interface WakeupListener {
  close(): Promise<void>;
}

/**
 * Listens for NOTIFY wake-ups on a dedicated PostgreSQL connection (reconnecting after a loss);
 * a no-op on SQLite. Wake-ups are only a hint: the worker also polls, so a lost one only delays.
 */
export async function listenForWakeups(
  ctx: ServiceContext,
  onWake: () => void,
  onError: (error: unknown) => void = () => undefined,
): Promise<WakeupListener> {
  const database = ctx.config.database;
  if (ctx.dialect !== 'postgres' || database.kind !== 'postgres') return { close: async () => undefined };
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(ctx.db);
  const schema = rows[0]?.schema ?? 'public';

  let closed = false;
  let client: pg.Client | null = null;
  let retry: NodeJS.Timeout | null = null;

  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: database.url });
    next.on('notification', (message) => {
      if (message.channel === WAKEUP_CHANNEL && message.payload === schema) onWake();
    });
    next.on('error', (error) => {
      onError(error);
      reconnectLater(next);
    });
    next.on('end', () => reconnectLater(next));
    client = next;
    await next.connect();
    await next.query(`listen ${WAKEUP_CHANNEL}`);
    if (closed) await next.end().catch(() => undefined);
    // Events committed while we were not listening: let the worker look.
    else onWake();
  };

  const reconnectLater = (lost: pg.Client) => {
    if (closed || client !== lost || retry) return;
    client = null;
    lost.end().catch(() => undefined);
    retry = setTimeout(() => {
      retry = null;
      connect().catch((error: unknown) => {
        onError(error);
        if (client) reconnectLater(client);
      });
    }, 1000);
  };

  await connect().catch((error: unknown) => {
    // Start anyway: the worker's polling covers the time until the listener is back.
    onError(error);
    if (client) reconnectLater(client);
  });
  return {
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      retry = null;
      const current = client;
      client = null;
      await current?.end().catch(() => undefined);
    },
  };
}
