import { createHash } from 'node:crypto';
import { closeSync, existsSync, fstatSync, openSync, readSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import ssh2, { type Connection, type SFTPWrapper } from 'ssh2';

const { Server, utils } = ssh2;
const { STATUS_CODE } = utils.sftp;

/**
 * A real SFTP server in the test process (the `ssh2` library's Server): a fresh ed25519 host key,
 * one user and password, and the SFTP requests an upload needs (OPEN, READ, WRITE, CLOSE, STAT,
 * FSTAT, REALPATH, RENAME, REMOVE) served from a folder on disk, which is `/` to the client. RENAME refuses
 * to replace a file, as SFTP version 3 servers do.
 */
export interface TestSftpServer {
  port: number;
  /** The host key's fingerprint, `SHA256:…`, as a client pins it. */
  hostKeySha256: string;
  /** Every connection the server accepted, logins refused included. */
  connections: number;
  close(): Promise<void>;
}

/** `stall`: log in, then never answer the request for the SFTP subsystem (a server hung after login). */
export async function startSftpServer(options: {
  root: string;
  username: string;
  password: string;
  stall?: boolean;
}): Promise<TestSftpServer> {
  const hostKey = utils.generateKeyPairSync('ed25519');
  const parsed = utils.parseKey(hostKey.public);
  if (parsed instanceof Error) throw parsed;
  const fingerprint = createHash('sha256').update(parsed.getPublicSSH()).digest('base64');
  const clients = new Set<Connection>();
  const state = { connections: 0 };
  const server = new Server({ hostKeys: [hostKey.private] }, (client) => {
    state.connections++;
    clients.add(client);
    client.on('close', () => clients.delete(client));
    client.on('error', () => undefined);
    client.on('authentication', (context) => {
      const ok = context.method === 'password' && context.username === options.username && context.password === options.password;
      if (ok) context.accept();
      else context.reject(['password']);
    });
    client.on('session', (acceptSession) => {
      acceptSession().on('sftp', (acceptSftp) => {
        if (!options.stall) serveFolder(acceptSftp(), options.root);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    hostKeySha256: `SHA256:${fingerprint.replace(/=+$/, '')}`,
    get connections() {
      return state.connections;
    },
    close: async () => {
      for (const client of clients) client.end();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function serveFolder(sftp: SFTPWrapper, root: string): void {
  const files = new Map<string, number>();
  let next = 0;
  const local = (remote: string): string => path.join(root, path.posix.normalize(`/${remote}`));
  const fdOf = (handle: Buffer): number => {
    const fd = files.get(handle.toString('hex'));
    if (fd === undefined) throw new Error('unknown handle');
    return fd;
  };
  const attrs = (stats: { mode: number; size: number; atimeMs: number; mtimeMs: number }) => ({
    mode: stats.mode,
    uid: 0,
    gid: 0,
    size: stats.size,
    atime: Math.floor(stats.atimeMs / 1000),
    mtime: Math.floor(stats.mtimeMs / 1000),
  });
  const attempt = (reqId: number, work: () => void): void => {
    try {
      work();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code === 'ENOENT' ? STATUS_CODE.NO_SUCH_FILE : STATUS_CODE.FAILURE;
      sftp.status(reqId, code);
    }
  };
  sftp.on('OPEN', (reqId, filename, flags) =>
    attempt(reqId, () => {
      const fd = openSync(local(filename), utils.sftp.flagsToString(flags) ?? 'r');
      const handle = Buffer.alloc(4);
      handle.writeUInt32BE(next++);
      files.set(handle.toString('hex'), fd);
      sftp.handle(reqId, handle);
    }),
  );
  sftp.on('WRITE', (reqId, handle, offset, data) =>
    attempt(reqId, () => {
      const fd = fdOf(handle);
      writeSync(fd, data, 0, data.length, offset);
      sftp.status(reqId, STATUS_CODE.OK);
    }),
  );
  sftp.on('READ', (reqId, handle, offset, length) =>
    attempt(reqId, () => {
      const buffer = Buffer.alloc(length);
      const read = readSync(fdOf(handle), buffer, 0, length, offset);
      if (read === 0) sftp.status(reqId, STATUS_CODE.EOF);
      else sftp.data(reqId, buffer.subarray(0, read));
    }),
  );
  sftp.on('FSTAT', (reqId, handle) =>
    attempt(reqId, () => {
      const fd = fdOf(handle);
      sftp.attrs(reqId, attrs(fstatSync(fd)));
    }),
  );
  sftp.on('CLOSE', (reqId, handle) =>
    attempt(reqId, () => {
      const fd = fdOf(handle);
      files.delete(handle.toString('hex'));
      closeSync(fd);
      sftp.status(reqId, STATUS_CODE.OK);
    }),
  );
  const stat = (reqId: number, remote: string) => attempt(reqId, () => sftp.attrs(reqId, attrs(statSync(local(remote)))));
  sftp.on('STAT', stat);
  sftp.on('LSTAT', stat);
  sftp.on('REALPATH', (reqId, remote) => {
    const normalized = path.posix.normalize(`/${remote}`);
    sftp.name(reqId, [{ filename: normalized, longname: normalized, attrs: {} as never }]);
  });
  sftp.on('RENAME', (reqId, from, to) =>
    attempt(reqId, () => {
      if (existsSync(local(to))) throw new Error('the target exists');
      renameSync(local(from), local(to));
      sftp.status(reqId, STATUS_CODE.OK);
    }),
  );
  sftp.on('REMOVE', (reqId, remote) =>
    attempt(reqId, () => {
      unlinkSync(local(remote));
      sftp.status(reqId, STATUS_CODE.OK);
    }),
  );
}

/** A TCP server that accepts connections and never says a word: an SFTP host that hangs. */
export async function startSilentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A port on which nothing listens: a server that refuses. */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
