import { runAdminCommandLine } from './admin-command-line.js';

/**
 * `npm run admin -- <command> [--flags]` (admin-command-line.ts) on the process's arguments,
 * environment and streams; the exit status is the command's.
 */
process.exitCode = await runAdminCommandLine(process.argv.slice(2), {
  env: process.env,
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
});
