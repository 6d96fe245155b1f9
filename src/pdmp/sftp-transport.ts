import { createHash } from 'node:crypto';
import path from 'node:path';
import type { ConnectConfig, SFTPWrapper } from 'ssh2';
import { assertFileName, type PdmpFile, type PdmpTransport, PdmpTransportError } from './pdmp-transport.js';
import { describeTransport } from './transport-config.js';

export interface SftpTransportOptions {
  host: string;
  port: number;
  username: string;
  /** PDMP_SFTP_PASSWORD_<STATE>: given to the server, never put in a message. */
  password: string;
  /** The folder files are uploaded into, `/` for the login folder. */
  directory: string;
  /** Connecting, the SSH handshake and the login, at most this long (default 20 s). */
  readyTimeoutMs?: number;
  /** The whole send, login to the last rename, at most this long (default 2 min). */
  sendTimeoutMs?: number;
  /** The server's host key, pinned: `SHA256:` and its base64 fingerprint, as `ssh-keygen -lf` shows it. */
  hostKeySha256?: string;
}

/**
 * `sftp://<user>@<host>:<port>/<dir>`, through the `ssh2` library (loaded on the first send, so that
 * a server that sends nothing by SFTP never loads it). The file is uploaded as `<name>.part` and
 * renamed when whole, so that the PDMP never picks up half a file. A server that refuses the rename
 * because the file is already there, with the same bytes, already has it: a resend after a lost
 * answer is not a failure. Every wait is bounded: a server that accepts the connection and says
 * nothing fails the send as `timeout`.
 */
export function sftpTransport(options: SftpTransportOptions): PdmpTransport {
  const where = `${options.host}:${options.port}`;
  return {
    description: describeTransport({ kind: 'sftp', ...options }),
    async send(file: PdmpFile): Promise<void> {
      assertFileName(file.name);
      const { Client: SshClient } = (await import('ssh2')).default;
      const client = new SshClient();
      const content = typeof file.content === 'string' ? Buffer.from(file.content, 'utf8') : file.content;
      let hostKeyRejected = false;
      const config: ConnectConfig = {
        host: options.host,
        port: options.port,
        username: options.username,
        password: options.password,
        tryKeyboard: true,
        readyTimeout: options.readyTimeoutMs ?? 20_000,
        keepaliveInterval: 0,
      };
      if (options.hostKeySha256 !== undefined) {
        const pinned = options.hostKeySha256;
        config.hostVerifier = (key: Buffer): boolean => {
          hostKeyRejected = `SHA256:${createHash('sha256').update(key).digest('base64').replace(/=+$/, '')}` !== pinned;
          return !hostKeyRejected;
        };
      }
      await new Promise<void>((resolve, reject) => {
        let settled = false;
        const finish = (error?: PdmpTransportError): void => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          client.end();
          client.destroy();
          if (error) reject(error);
          else resolve();
        };
        const timer = setTimeout(
          () => finish(new PdmpTransportError('timeout', `sending ${file.name} to SFTP ${where} took too long`)),
          options.sendTimeoutMs ?? 120_000,
        );
        client.on('keyboard-interactive', (_name, _instructions, _lang, prompts, answer) =>
          answer(prompts.map(() => options.password)),
        );
        client.on('error', (error) => finish(connectionFailure(error, where, options.username, hostKeyRejected)));
        client.on('close', () =>
          finish(new PdmpTransportError('failed', `SFTP ${where} closed the connection before ${file.name} was sent`)),
        );
        client.on('ready', () => {
          client.sftp((error, sftp) => {
            if (error) {
              finish(new PdmpTransportError('failed', `SFTP ${where} refused to open an SFTP session`, { cause: error }));
              return;
            }
            upload(sftp, options.directory, file.name, content).then(
              () => finish(),
              (cause: unknown) =>
                finish(new PdmpTransportError('failed', `SFTP ${where} refused ${file.name}: ${reason(cause)}`, { cause })),
            );
          });
        });
        client.connect(config);
      });
    },
  };
}

/**
 * Uploads under a temporary name, then renames. A rename refused because the target is there is a
 * success only when the target holds these very bytes (read back; a server that does not let it be
 * read refuses the resend); either way the temporary file is removed.
 */
async function upload(sftp: SFTPWrapper, directory: string, name: string, content: Buffer): Promise<void> {
  const target = path.posix.join(directory, name);
  const partial = `${target}.part`;
  await new Promise<void>((resolve, reject) => sftp.writeFile(partial, content, (error) => (error ? reject(error) : resolve())));
  try {
    await new Promise<void>((resolve, reject) => sftp.rename(partial, target, (error) => (error ? reject(error) : resolve())));
  } catch (renameError) {
    const there = await new Promise<Buffer | null>((resolve) =>
      sftp.readFile(target, (error, data) => resolve(error ? null : data)),
    );
    await new Promise<void>((resolve) => sftp.unlink(partial, () => resolve()));
    if (there === null || !there.equals(content)) throw renameError;
  }
}

/** An ssh2 connection error as a transport failure; the password is never part of it. */
function connectionFailure(
  error: Error & { level?: string; code?: string },
  where: string,
  user: string,
  hostKeyRejected: boolean,
) {
  if (hostKeyRejected) {
    return new PdmpTransportError('host_key', `SFTP ${where} presented a host key other than the pinned one`, { cause: error });
  }
  if (error.level === 'client-authentication') {
    return new PdmpTransportError('authentication', `SFTP ${where} refused the login of ${user}: wrong user name or password`, {
      cause: error,
    });
  }
  if (error.level === 'client-timeout' || /timed out/i.test(error.message)) {
    return new PdmpTransportError('timeout', `SFTP ${where} did not complete the SSH handshake in time`, { cause: error });
  }
  const code = error.code ?? error.level ?? 'connection error';
  return new PdmpTransportError('unreachable', `SFTP ${where} could not be reached (${code})`, { cause: error });
}

function reason(cause: unknown): string {
  return cause instanceof Error ? cause.message : 'unknown error';
}
