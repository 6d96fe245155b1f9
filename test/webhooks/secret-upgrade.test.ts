import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { migrations } from '../../src/db/migrations/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRuntime, type Runtime } from '../../src/bootstrap.js';
import { createClinic, issueApiKey } from '../../src/clinics/clinic.service.js';
import { loadConfig, type DatabaseConfig } from '../../src/config.js';
import type { DialectName } from '../../src/db/database.js';
import { dataKeyId } from '../../src/secrets/data-key.js';
import { WebhookWorker } from '../../src/delivery/delivery-worker.js';
import { rotateEncryptionKey } from '../../src/webhooks/secret-encryption.service.js';
import { partnerAuditContext } from '../../src/audit/audit-actor.js';
import { registerEndpointForPartner } from '../../src/webhooks/webhook.service.js';
import { TEST_DATA_ENCRYPTION_KEY } from '../helpers/test-app.js';
import { createTestDatabase, DIALECTS } from '../helpers/test-db.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { emitEvent } from './support.js';

const TEST_KEY_ID = dataKeyId(Buffer.from(TEST_DATA_ENCRYPTION_KEY, 'base64'));

/** A database that outlives one runtime: a temporary SQLite file, or a PostgreSQL schema. */
async function durableDatabase(
  dialect: DialectName,
): Promise<{ config: DatabaseConfig; schema?: string; drop(): Promise<void> }> {
  if (dialect === 'postgres') return createTestDatabase('postgres');
  const dir = mkdtempSync(path.join(tmpdir(), 'secret-upgrade-'));
  return {
    config: { kind: 'sqlite', filename: path.join(dir, 'db.sqlite') },
    drop: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

describe.each(DIALECTS)('upgrading a database with plaintext webhook secrets on %s', (dialect) => {
  let database: Awaited<ReturnType<typeof durableDatabase>>;
  let receiver: WebhookReceiver;
  const open = async (): Promise<Runtime> => {
    const config = loadConfig({ DATA_ENCRYPTION_KEY: TEST_DATA_ENCRYPTION_KEY, LOG_LEVEL: 'silent', RUN_WORKER: 'false' });
    return openRuntime(
      { ...config, database: database.config },
      { postgres: { ...(database.schema ? { schema: database.schema } : {}), poolSize: 3 } },
    );
  };
  const storedSecrets = async (runtime: Runtime) =>
    (
      await sql<{
        id: string;
        secret: string;
        secret_key_id?: string | null;
      }>`select * from webhook_endpoints order by id`.execute(runtime.ctx.db)
    ).rows.map((r) => ({ id: r.id, secret: r.secret, secret_key_id: r.secret_key_id }));
  const deliverOnce = async (runtime: Runtime, clinicId: string) => {
    const worker = new WebhookWorker(runtime.ctx);
    await emitEvent(runtime.ctx, clinicId);
    await worker.drain();
    await worker.stop();
  };

  beforeAll(async () => {
    database = await durableDatabase(dialect);
    receiver = await WebhookReceiver.start();
  });
  afterAll(async () => {
    await receiver.stop();
    await database.drop();
  });

  it('when a server starts on a database from before 007 holding plaintext secrets, then it encrypts them before serving and signs with them', async () => {
    // A database as the version before encryption left it: plaintext secrets, no key id column, 007 not applied.
    const before = await open();
    const clinic = await createClinic(before.ctx, { name: 'Upgrade Clinic' }, null);
    const key = await issueApiKey(before.ctx, clinic.clinic_id, null);
    const identity = { clinicId: clinic.clinic_id, apiKeyId: key.api_key_id };
    const endpoints: { id: string; secret: string; path: string }[] = [];
    for (const hook of ['/a', '/b']) {
      const { webhook_id, secret } = await registerEndpointForPartner(
        before.ctx,
        identity,
        {
          clinic_id: clinic.clinic_id,
          webhook_url: receiver.url(hook),
        },
        partnerAuditContext(identity),
      );
      endpoints.push({ id: webhook_id, secret, path: hook });
      await sql`update webhook_endpoints set secret = ${secret} where id = ${webhook_id}`.execute(before.ctx.db);
    }
    // The migrations after 007 first (they are reversible), newest first, then 007's own change.
    for (const name of Object.keys(migrations)
      .filter((n) => n > '007_webhook_secret_encryption')
      .reverse()) {
      await migrations[name]?.down?.(before.ctx.db);
      await sql`delete from kysely_migration where name = ${name}`.execute(before.ctx.db);
    }
    await sql`alter table webhook_endpoints drop column secret_key_id`.execute(before.ctx.db);
    await sql`delete from kysely_migration where name = '007_webhook_secret_encryption'`.execute(before.ctx.db);
    expect((await storedSecrets(before)).map((r) => r.secret).sort()).toEqual(endpoints.map((e) => e.secret).sort());
    await before.close();

    const after = await open();
    try {
      const applied = await sql<{ name: string }>`select name from kysely_migration`.execute(after.ctx.db);
      expect(applied.rows.map((r) => r.name)).toContain('007_webhook_secret_encryption');
      const rows = await storedSecrets(after);
      expect(rows.map((r) => r.secret_key_id)).toEqual([TEST_KEY_ID, TEST_KEY_ID]);
      for (const { secret } of endpoints) expect(JSON.stringify(rows)).not.toContain(secret.slice(6));

      await deliverOnce(after, clinic.clinic_id);
      expect(receiver.received).toHaveLength(2);
      for (const endpoint of endpoints) {
        const request = receiver.received.find((r) => r.path === endpoint.path);
        expect(WebhookReceiver.verify(endpoint.secret, request!).type).toBe('order.created');
      }

      // A row written in plaintext after the start (by an instance of the older version, during a
      // rolling upgrade) is still used for signing, and the rotation command encrypts it.
      const [legacy] = endpoints;
      await sql`update webhook_endpoints set secret = ${legacy!.secret}, secret_key_id = null where id = ${legacy!.id}`.execute(
        after.ctx.db,
      );
      receiver.received.length = 0;
      await deliverOnce(after, clinic.clinic_id);
      const request = receiver.received.find((r) => r.path === legacy!.path);
      expect(WebhookReceiver.verify(legacy!.secret, request!).type).toBe('order.created');
      expect(await rotateEncryptionKey(after.ctx)).toEqual({ current_key_id: TEST_KEY_ID, reencrypted: 1, unreadable: [] });
      expect((await storedSecrets(after)).map((r) => r.secret_key_id)).toEqual([TEST_KEY_ID, TEST_KEY_ID]);
    } finally {
      await after.close();
    }
  });
});
