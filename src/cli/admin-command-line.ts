import { randomBytes } from 'node:crypto';
import { ReadStream } from 'node:tty';
import { HELP, parseCommand, usageOf, UsageError, type ParsedCommand } from '../admin/cli-commands.js';
import { executeCommand } from '../admin/cli-execute.js';
import { openRuntime } from '../bootstrap.js';
import { ConfigError, loadConfig } from '../config.js';
import type { PostgresOptions } from '../db/create-db.js';
import { AppError } from '../errors.js';
import { promptNewPassword, readPasswordFromStdin, type Output } from './read-password.js';

/** What the command line reads and writes: the process's own in `src/cli/admin.ts`, a test's in process. */
export interface AdminCommandLineIo {
  /** The variables it reads (DATABASE_URL, FULFILLMENT_ENV, DATA_ENCRYPTION_KEY, PORT...). */
  env: NodeJS.ProcessEnv;
  /** create-staff's password: piped with --password-stdin, or typed when this is a terminal (a tty.ReadStream). */
  stdin: AsyncIterable<Buffer | string>;
  stdout: Output;
  stderr: Output;
  /**
   * Tests only: the development key file (default ./data/encryption.key of the working folder, which
   * a test in process cannot change) and the PostgreSQL schema of their own.
   */
  runtime?: { keyFile?: string; postgres?: PostgresOptions };
}

/**
 * `npm run admin -- <command> [--flags]`: provisions clinics, keys, formulary, carriers and staff
 * without a running server, on the database DATABASE_URL selects. Prints results as JSON.
 * Resolves to the exit status: 0 done, 1 refused or failed, 2 bad usage.
 */
export async function runAdminCommandLine(argv: string[], io: AdminCommandLineIo): Promise<number> {
  try {
    return await run(argv, io);
  } catch (error) {
    io.stderr.write(`Error: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

async function run(argv: string[], io: AdminCommandLineIo): Promise<number> {
  let parsed: ParsedCommand;
  try {
    parsed = parseCommand(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr.write(`Error: ${error.message}\n${usageOf(error.command)}\n`);
    return 2;
  }
  if (parsed.command === 'help') {
    io.stdout.write(`${HELP}\n`);
    return 0;
  }

  let password: string | undefined;
  if (parsed.command === 'create-staff') {
    if (parsed.flags['password-stdin']) password = await readPasswordFromStdin(io.stdin);
    else if (io.stdin instanceof ReadStream) password = await promptNewPassword(io.stdin, io.stderr);
    else {
      io.stderr.write('Error: create-staff reads the password at a terminal, or from standard input with --password-stdin\n');
      return 2;
    }
  }

  let config;
  try {
    // The command line needs no operator token: it talks to the database directly. A random one
    // stands in, since production refuses a missing or weak token.
    config = loadConfig({
      ...io.env,
      ADMIN_TOKEN: io.env.ADMIN_TOKEN || randomBytes(32).toString('base64url'),
      LOG_LEVEL: 'silent',
    });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    io.stderr.write(`${error.message}\n`);
    return 1;
  }

  const runtime = await openRuntime(config, { ...io.runtime, redis: false });
  try {
    const result = await executeCommand(runtime.ctx, parsed, password === undefined ? {} : { password });
    io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`Error: ${error.message}\n${usageOf(error.command)}\n`);
      return 2;
    }
    if (error instanceof AppError) {
      const details = error.details ? `\n${JSON.stringify(error.details, null, 2)}` : '';
      io.stderr.write(`Error (${error.code}): ${error.message}${details}\n`);
      return 1;
    }
    throw error;
  } finally {
    await runtime.close();
  }
}
