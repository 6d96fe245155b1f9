import { userInfo } from 'node:os';
import type { AuditContext } from '../audit/audit-actor.js';
import { UsageError } from './cli-commands.js';

/** The OS user running the command line (`os.userInfo()`); empty when the system cannot tell. */
export function osUserName(): string {
  try {
    return userInfo().username;
  } catch {
    // No entry for the process's uid (some containers): the caller asks for --operator instead.
    return '';
  }
}

/**
 * Who is at the command line, as the audit trail and the order history name them: `--operator
 * <name>` when given (checked as a name by cli-commands.ts), or else the OS user running it. A
 * command with neither is refused rather than recorded as nobody.
 */
export function commandLineAudit(operatorFlag: string | undefined, osUser: () => string = osUserName): AuditContext {
  const operatorName = operatorFlag ?? osUser().trim();
  if (operatorName === '') throw new UsageError('the OS user cannot be read: name yourself with --operator "<your name>"');
  return { actor: { type: 'command_line', operatorName }, requestId: null, clientAddress: null };
}
