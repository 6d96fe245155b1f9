import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig, type DatabaseConfig } from '../../src/config.js';
import { dataKeyId } from '../../src/secrets/data-key.js';
import { DEV_KEY_FILE, openKeyring } from '../../src/secrets/key-source.js';

describe('where the data encryption key comes from', () => {
  let dir: string;
  let keyFile: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'key-source-'));
    keyFile = path.join(dir, 'data', 'encryption.key');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const onFile: DatabaseConfig = { kind: 'sqlite', filename: 'unused.sqlite' };
  const development = (env: Record<string, string> = {}, database: DatabaseConfig = onFile) => ({
    ...loadConfig(env),
    database,
  });

  it('when the default key file is named, then it is data/encryption.key, beside the default SQLite file', () => {
    expect(DEV_KEY_FILE).toBe(path.join('data', 'encryption.key'));
  });

  it('when DATA_ENCRYPTION_KEY is unset in development, then a key file is created once (mode 0600) and reused by later starts', () => {
    const first = openKeyring(development(), { keyFile });
    expect(existsSync(keyFile)).toBe(true);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    const text = readFileSync(keyFile, 'utf8').trim();
    expect(Buffer.from(text, 'base64')).toHaveLength(32);
    expect(first.currentKeyId).toBe(dataKeyId(Buffer.from(text, 'base64')));

    const second = openKeyring(development(), { keyFile });
    expect(second.currentKeyId).toBe(first.currentKeyId);
    expect(readFileSync(keyFile, 'utf8').trim()).toBe(text);
    // What one start sealed, the next one opens.
    expect(second.open(first.seal('whsec_abc', 'row'), 'row')).toBe('whsec_abc');
  });

  it('when the database is PostgreSQL in development, then the same key file is used', () => {
    const sqlite = openKeyring(development(), { keyFile });
    const postgres = openKeyring(development({}, { kind: 'postgres', url: 'postgres://localhost/x' }), { keyFile });
    expect(postgres.currentKeyId).toBe(sqlite.currentKeyId);
  });

  it('when DATA_ENCRYPTION_KEY is set, then it is used and no key file is written', () => {
    const key = Buffer.alloc(32, 7).toString('base64');
    const keyring = openKeyring(development({ DATA_ENCRYPTION_KEY: key }), { keyFile });
    expect(keyring.currentKeyId).toBe(dataKeyId(Buffer.alloc(32, 7)));
    expect(existsSync(keyFile)).toBe(false);
  });

  it('when the database is SQLite in memory, then a key for this run only is used and no key file is written', () => {
    const a = openKeyring(development({}, { kind: 'sqlite', filename: ':memory:' }), { keyFile });
    const b = openKeyring(development({}, { kind: 'sqlite', filename: ':memory:' }), { keyFile });
    expect(a.currentKeyId).not.toBe(b.currentKeyId);
    expect(existsSync(keyFile)).toBe(false);
  });

  it('when the key file is damaged, then opening fails naming the file and DATA_ENCRYPTION_KEY, and the file is left alone', () => {
    openKeyring(development(), { keyFile });
    writeFileSync(keyFile, 'not a key\n');
    expect(() => openKeyring(development(), { keyFile })).toThrow(
      new RegExp(`The key file ${keyFile.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} must be base64.*set DATA_ENCRYPTION_KEY`),
    );
    expect(readFileSync(keyFile, 'utf8')).toBe('not a key\n');
  });
});
