/**
 * How a finished ASAP file reaches a PDMP: dropped in a folder (for a relay, or to look at), or
 * uploaded by SFTP. A transport sends once; retrying is the caller's (the submission log and its
 * retry schedule), which is why a failure says what kind it is.
 */

export interface PdmpFile {
  /** A plain file name: letters, digits, `.`, `_` and `-`, not starting with a dot. */
  name: string;
  content: string | Buffer;
}

export interface PdmpTransport {
  /** Where files go, for logs and the submission log (`sftp://user@host:22/in`): never a password. */
  readonly description: string;
  send(file: PdmpFile): Promise<void>;
}

/**
 * - `unreachable`: no connection (refused, no such host, the network);
 * - `timeout`: connected, but no answer in time;
 * - `authentication`: the server refused the user name or password;
 * - `host_key`: the server is not the one pinned;
 * - `failed`: the server or the disk refused the file itself.
 */
export type PdmpTransportFailure = 'unreachable' | 'timeout' | 'authentication' | 'host_key' | 'failed';

/** A file not sent. Its message names the destination and never holds a password. */
export class PdmpTransportError extends Error {
  constructor(
    readonly failure: PdmpTransportFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'PdmpTransportError';
  }
}

/** What is wrong with a file name a transport is asked to write, or null. */
export function fileNameProblem(name: string): string | null {
  if (!/^[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}$/.test(name)) {
    return 'must be 1 to 200 letters, digits, dots, underscores or hyphens, not starting with a dot';
  }
  return null;
}

export function assertFileName(name: string): void {
  const problem = fileNameProblem(name);
  if (problem !== null) throw new PdmpTransportError('failed', `the file name ${problem}`);
}
