import { randomBytes } from 'node:crypto';
import { HELP, parseCommand, usageOf, UsageError, type ParsedCommand } from '../admin/cli-commands.js';
import { executeCommand } from '../admin/cli-execute.js';
import { openRuntime } from '../bootstrap.js';
import { ConfigError, loadConfig } from '../config.js';
import { AppError } from '../errors.js';
import { promptNewPassword, readPasswordFromStdin } from './read-password.js';

/**
 * `npm run admin -- <command> [--flags]`: provisions clinics, keys, formulary, carriers and staff
 * without a running server, on the database DATABASE_URL selects. Prints results as JSON.
 * Exit status: 0 done, 1 refused or failed, 2 bad usage.
 */
async function main(argv: string[]): Promise<number> {
  let parsed: ParsedCommand;
  try {
    parsed = parseCommand(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`Error: ${error.message}\n${usageOf(error.command)}\n`);
    return 2;
  }
  if (parsed.command === 'help') {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }

  let password: string | undefined;
  if (parsed.command === 'create-staff') {
    if (parsed.flags['password-stdin']) password = await readPasswordFromStdin();
    else if (process.stdin.isTTY) password = await promptNewPassword();
    else {
      process.stderr.write(
        'Error: create-staff reads the password at a terminal, or from standard input with --password-stdin\n',
      );
      return 2;
    }
  }

  let config;
  try {
    // The command line needs no operator token: it talks to the database directly. A random one
    // stands in, since production refuses a missing or weak token.
    config = loadConfig({
      ...process.env,
      ADMIN_TOKEN: process.env.ADMIN_TOKEN || randomBytes(32).toString('base64url'),
      LOG_LEVEL: 'silent',
    });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    return 1;
  }

  const runtime = await openRuntime(config, { redis: false });
  try {
    const result = await executeCommand(runtime.ctx, parsed, password === undefined ? {} : { password });
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`Error: ${error.message}\n${usageOf(error.command)}\n`);
      return 2;
    }
    if (error instanceof AppError) {
      const details = error.details ? `\n${JSON.stringify(error.details, null, 2)}` : '';
      process.stderr.write(`Error (${error.code}): ${error.message}${details}\n`);
      return 1;
    }
    throw error;
  } finally {
    await runtime.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`Error: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
