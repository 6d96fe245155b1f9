import type { AppContext, KeyringContext, ReadContext } from '../context.js';
import type { Trx } from '../db/database.js';
import { SecretUnavailableError } from '../secrets/keyring.js';
import { openEndpointSecret, sealEndpointSecret } from '../delivery/endpoint-secret.js';
import * as repo from './webhook.repository.js';

/*
 * Keeping every webhook signing secret encrypted under the current data key: plaintext secrets left by
 * a database from before encryption are encrypted at start, and `rotate-encryption-key` moves secrets
 * off previous keys. Both only replace a row that still holds the value they read, so processes
 * doing it at once (several instances starting together) count each secret once and never overwrite
 * a newer value with an older one.
 */

type SecretsContext = ReadContext & KeyringContext;

/** Encrypts the plaintext secrets (rows from before migration 007) under the current key, in one transaction. */
export async function encryptPlaintextSecrets(ctx: SecretsContext): Promise<number> {
  return ctx.db.transaction().execute(async (trx) => {
    let encrypted = 0;
    for (const row of await repo.secretsNotUnderKey(trx, ctx.keyring.currentKeyId, { plaintextOnly: true })) {
      if (await repo.replaceSecret(trx, row, sealEndpointSecret(ctx.keyring, row.id, row.secret))) encrypted += 1;
    }
    return encrypted;
  });
}

export interface RotationResult {
  current_key_id: string;
  /** Secrets re-encrypted under the current key by this run (plaintext ones included). */
  reencrypted: number;
  /** Secrets that could not be decrypted (their key is not configured, or they were altered): left as they are. */
  unreadable: { webhook_id: string; reason: string }[];
}

/**
 * Re-encrypts under the current key (DATA_ENCRYPTION_KEY) every secret that is under another key or
 * in plaintext, deleted endpoints included, a page per transaction; then the previous secrets kept
 * after a signing-secret rotation the same way (one whose window is over is dropped instead: it signs
 * nothing, and its key may be gone). Idempotent: a second run finds nothing to do. Once it reports
 * nothing unreadable, the previous keys can be dropped.
 */
export async function rotateEncryptionKey(
  ctx: SecretsContext & Pick<AppContext, 'clock'>,
  pageSize = 100,
): Promise<RotationResult> {
  const { keyring } = ctx;
  const result: RotationResult = { current_key_id: keyring.currentKeyId, reencrypted: 0, unreadable: [] };
  await inPages(ctx, result, pageSize, {
    read: (trx, afterId) => repo.secretsNotUnderKey(trx, keyring.currentKeyId, { afterId, limit: pageSize }),
    reencrypt: async (trx, row) =>
      repo.replaceSecret(trx, row, sealEndpointSecret(keyring, row.id, openEndpointSecret(keyring, row))),
  });
  await inPages(ctx, result, pageSize, {
    read: (trx, afterId) => repo.previousSecretsNotUnderKey(trx, keyring.currentKeyId, { afterId, limit: pageSize }),
    reencrypt: async (trx, row) => {
      const expiresAt = row.previous_secret_expires_at;
      if (expiresAt === null || Date.parse(expiresAt) <= ctx.clock().getTime()) {
        await repo.replacePreviousSecret(trx, row, null);
        return false;
      }
      const stored = { id: row.id, secret: row.previous_secret, secret_key_id: row.previous_secret_key_id };
      const secret = openEndpointSecret(keyring, stored, 'previous signing secret');
      return repo.replacePreviousSecret(trx, row, sealEndpointSecret(keyring, row.id, secret));
    },
  });
  return result;
}

/**
 * Walks the rows `read` finds, in id order, a page per transaction, and re-encrypts each (`reencrypt`
 * answers whether it replaced the row); a secret that cannot be decrypted is reported and left.
 */
async function inPages<Row extends { id: string }>(
  ctx: SecretsContext,
  result: RotationResult,
  pageSize: number,
  step: { read: (trx: Trx, afterId: string | undefined) => Promise<Row[]>; reencrypt: (trx: Trx, row: Row) => Promise<boolean> },
): Promise<void> {
  let afterId: string | undefined;
  for (;;) {
    const rows = await ctx.db.transaction().execute(async (trx) => {
      const page = await step.read(trx, afterId);
      for (const row of page) {
        try {
          if (await step.reencrypt(trx, row)) result.reencrypted += 1;
        } catch (error) {
          if (!(error instanceof SecretUnavailableError)) throw error;
          result.unreadable.push({ webhook_id: row.id, reason: error.message });
        }
      }
      return page;
    });
    const last = rows.at(-1);
    if (rows.length < pageSize || !last) return;
    afterId = last.id;
  }
}
