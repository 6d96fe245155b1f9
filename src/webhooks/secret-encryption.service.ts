import type { KeyringContext, ReadContext } from '../context.js';
import { SecretUnavailableError } from '../secrets/keyring.js';
import { openEndpointSecret, sealEndpointSecret } from './endpoint-secret.js';
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
 * in plaintext, deleted endpoints included, a page per transaction. Idempotent: a second run finds
 * nothing to do. Once it reports nothing unreadable, the previous keys can be dropped.
 */
export async function rotateEncryptionKey(ctx: SecretsContext, pageSize = 100): Promise<RotationResult> {
  const result: RotationResult = { current_key_id: ctx.keyring.currentKeyId, reencrypted: 0, unreadable: [] };
  let afterId: string | undefined;
  for (;;) {
    const page = await ctx.db.transaction().execute(async (trx) => {
      const rows = await repo.secretsNotUnderKey(trx, ctx.keyring.currentKeyId, { afterId, limit: pageSize });
      let reencrypted = 0;
      const unreadable: RotationResult['unreadable'] = [];
      for (const row of rows) {
        let secret: string;
        try {
          secret = openEndpointSecret(ctx.keyring, row);
        } catch (error) {
          if (!(error instanceof SecretUnavailableError)) throw error;
          unreadable.push({ webhook_id: row.id, reason: error.message });
          continue;
        }
        if (await repo.replaceSecret(trx, row, sealEndpointSecret(ctx.keyring, row.id, secret))) reencrypted += 1;
      }
      return { rows, reencrypted, unreadable };
    });
    result.reencrypted += page.reencrypted;
    result.unreadable.push(...page.unreadable);
    const last = page.rows.at(-1);
    if (page.rows.length < pageSize || !last) return result;
    afterId = last.id;
  }
}
