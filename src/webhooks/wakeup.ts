import { sql } from 'kysely';
import pg from 'pg';
import type { ServiceContext } from '../context.js';
import { runInBackground } from '../background.js';
import { WAKEUP_CHANNEL } from '../events/outbox.js';

/**
 * Wake-ups of delivery workers in other processes: they LISTEN on the outbox's NOTIFY channel
 * (events/outbox.ts). SQLite is single-process: the in-process OutboxNotifier is enough.
 */

/**
 * Ends a connection we no longer need. One that is already broken may refuse to end: that changes
 * nothing (its loss was reported when it happened), so the refusal is dropped on purpose.
 */
const endQuietly = (client: pg.Client): Promise<void> => client.end().catch(() => undefined);

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
    if (closed) await endQuietly(next);
    // Events committed while we were not listening: let the worker look.
    else onWake();
  };

  const reconnectLater = (lost: pg.Client) => {
    if (closed || client !== lost || retry) return;
    client = null;
    runInBackground(endQuietly(lost), onError);
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
      if (current) await endQuietly(current);
    },
  };
}
