import { sql } from 'kysely';
import pg from 'pg';
import type { ServiceContext } from '../context.js';
import { runInBackground } from '../background.js';

/**
 * Notifications between processes: PostgreSQL LISTEN on a channel whose payload is the schema
 * (see `notifyAtCommit` in dialect.ts). SQLite is single-process: in-process events are enough, so
 * listening there is a no-op.
 */

/**
 * Ends a connection we no longer need. One that is already broken may refuse to end: that changes
 * nothing (its loss was reported when it happened), so the refusal is dropped on purpose.
 */
const endQuietly = (client: pg.Client): Promise<void> => client.end().catch(() => undefined);

export interface NotificationListener {
  close(): Promise<void>;
}

/**
 * Listens for NOTIFY on `channel` on a dedicated PostgreSQL connection (reconnecting a second after
 * a loss, and calling `onWake` once listening again, for what was missed meanwhile); a no-op on
 * SQLite. Notifications are only a hint: a listener must also poll, so a lost one only delays.
 */
export async function listenForNotifications(
  ctx: ServiceContext,
  channel: string,
  onWake: () => void,
  onError: (error: unknown) => void = () => undefined,
): Promise<NotificationListener> {
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
      if (message.channel === channel && message.payload === schema) onWake();
    });
    next.on('error', (error) => {
      onError(error);
      reconnectLater(next);
    });
    next.on('end', () => reconnectLater(next));
    client = next;
    await next.connect();
    await next.query(`listen ${next.escapeIdentifier(channel)}`);
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
