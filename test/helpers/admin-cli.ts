import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { buildApp, type App } from '../../src/app.js';
import { openRuntime, type Runtime } from '../../src/bootstrap.js';
import { runAdminCommandLine } from '../../src/cli/admin-command-line.js';
import { loadConfig } from '../../src/config.js';
import type { DialectName } from '../../src/db/database.js';
import { DEV_KEY_FILE } from '../../src/secrets/key-source.js';
import { heldFlushTimer, OPERATOR_TOKEN, TEST_DATA_ENCRYPTION_KEY, TEST_PASSWORD_HASHING } from './test-app.js';
import { createTestDatabase } from './test-db.js';

/** What one run of the operator command line did: its exit status, what it printed, and stdout as JSON. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  json: any;
}

function cliResult(code: number, stdout: string, stderr: string): CliResult {
  return { code, stdout, stderr, json: stdout.startsWith('{') ? JSON.parse(stdout) : undefined };
}

/**
 * A database for the operator command line and for the servers a test starts on it afterwards: a
 * SQLite file, or a PostgreSQL schema of its own; with a folder of its own for the file and the
 * development key file.
 */
export class CliDatabase {
  private constructor(
    readonly dir: string,
    readonly url: string,
    private readonly schema: string | undefined,
    private readonly drop: () => Promise<void>,
  ) {}

  static async open(dialect: DialectName): Promise<CliDatabase> {
    const dir = mkdtempSync(path.join(tmpdir(), 'admin-cli-'));
    if (dialect === 'sqlite') return new CliDatabase(dir, path.join(dir, 'fulfillment.sqlite'), undefined, async () => undefined);
    const database = await createTestDatabase('postgres');
    if (database.config.kind !== 'postgres') throw new Error('expected a PostgreSQL database');
    return new CliDatabase(dir, database.config.url, database.schema, () => database.drop());
  }

  /** Where the command line and the servers find the development key when DATA_ENCRYPTION_KEY is empty. */
  get keyFile(): string {
    return path.join(this.dir, DEV_KEY_FILE);
  }

  /** A command's environment: this database and the tests' data key, then `env`. */
  env(env: Record<string, string> = {}): Record<string, string> {
    return { DATABASE_URL: this.url, DATA_ENCRYPTION_KEY: TEST_DATA_ENCRYPTION_KEY, ...env };
  }

  /**
   * The command line in process: the function the built binary runs (src/cli/admin.ts), with
   * `input` on a piped standard input (not a terminal). No process start, so hundreds of runs are cheap.
   */
  async cli(args: string[], env: Record<string, string> = {}, input?: string): Promise<CliResult> {
    let stdout = '';
    let stderr = '';
    const code = await runAdminCommandLine(args, {
      env: this.env(env),
      stdin: Readable.from(input === undefined ? [] : [Buffer.from(input, 'utf8')]),
      stdout: {
        write: (text: string) => {
          stdout += text;
        },
      },
      stderr: {
        write: (text: string) => {
          stderr += text;
        },
      },
      runtime: { keyFile: this.keyFile, ...(this.schema ? { postgres: { schema: this.schema } } : {}) },
    });
    return cliResult(code, stdout, stderr);
  }

  /** A server of the given environment on the same database, called through `inject`. */
  async withApp<T>(fn: (app: App, runtime: Runtime) => Promise<T>, env: Record<string, string> = {}): Promise<T> {
    const config = loadConfig({
      DATABASE_URL: this.url,
      ADMIN_TOKEN: OPERATOR_TOKEN,
      DATA_ENCRYPTION_KEY: TEST_DATA_ENCRYPTION_KEY,
      LOG_LEVEL: 'silent',
      RUN_WORKER: 'false',
      ...env,
    });
    const runtime = await openRuntime(
      // The test's own server: the tests' password cost (the command line keeps production's).
      { ...config, passwordHashing: TEST_PASSWORD_HASHING },
      {
        keyFile: this.keyFile,
        ...(this.schema ? { postgres: { schema: this.schema, poolSize: 5 } } : {}),
        // No request-log batch written on a timer while a command runs beside this server.
        requestLog: { timer: heldFlushTimer },
      },
    );
    const app = await buildApp(runtime.ctx);
    try {
      return await fn(app, runtime);
    } finally {
      await app.close();
      await runtime.close();
    }
  }

  async close(): Promise<void> {
    await this.drop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * The built command line (dist/cli/admin.js) as a child process started in `cwd`, with `input` on
 * its standard input (a pipe), and none of the test process's ADMIN_TOKEN, FULFILLMENT_ENV and data keys.
 */
export function spawnCli(
  cliPath: string,
  args: string[],
  options: { cwd: string; env: Record<string, string>; input?: string },
): Promise<CliResult> {
  const {
    ADMIN_TOKEN: _token,
    FULFILLMENT_ENV: _env,
    DATA_ENCRYPTION_KEY: _key,
    DATA_ENCRYPTION_KEY_PREVIOUS: _previous,
    ...inherited
  } = process.env;
  const child = spawn(process.execPath, [cliPath, ...args], { cwd: options.cwd, env: { ...inherited, ...options.env } });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdin.end(options.input ?? '');
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve(cliResult(code ?? -1, stdout, stderr)));
  });
}
