import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PdmpTransportError } from '../../src/pdmp/pdmp-transport.js';
import { sftpTransport, type SftpTransportOptions } from '../../src/pdmp/sftp-transport.js';
import { createPdmpTransport } from '../../src/pdmp/transport-factory.js';
import { writeAsapFile } from '../../src/pdmp/asap-writer.js';
import { buildReport, FILE_OPTIONS } from './pdmp-factories.js';
import { closedPort, startSftpServer, startSilentServer, type TestSftpServer } from './sftp-server.js';

const USER = 'pharm01';
const PASSWORD = 'correct-horse-battery-staple';

describe('the SFTP transport, against an SFTP server in the test process', () => {
  let root: string;
  let server: TestSftpServer;
  let options: SftpTransportOptions;

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'pdmp-sftp-'));
    await mkdir(path.join(root, 'upload'));
    server = await startSftpServer({ root, username: USER, password: PASSWORD });
    options = {
      host: '127.0.0.1',
      port: server.port,
      username: USER,
      password: PASSWORD,
      directory: '/upload',
      readyTimeoutMs: 5_000,
    };
  });
  afterAll(async () => {
    await server.close();
    await rm(root, { recursive: true, force: true });
  });

  it('when an ASAP file is sent, then it arrives in the folder byte for byte and no partial file is left', async () => {
    const content = writeAsapFile(buildReport(), FILE_OPTIONS);
    await sftpTransport(options).send({ name: 'TX_20260302_1.dat', content });
    expect(await readFile(path.join(root, 'upload', 'TX_20260302_1.dat'), 'utf8')).toBe(content);
    expect(await readdir(path.join(root, 'upload'))).toEqual(['TX_20260302_1.dat']);
  });

  it('when a file of arbitrary bytes larger than one SFTP write is sent, then every byte arrives', async () => {
    const content = randomBytes(300_000);
    await sftpTransport({ ...options, hostKeySha256: server.hostKeySha256 }).send({ name: 'big.bin', content });
    expect((await readFile(path.join(root, 'upload', 'big.bin'))).equals(content)).toBe(true);
  });

  it('when the same file is sent again after it arrived, then the send succeeds and the file is unchanged', async () => {
    const transport = createPdmpTransport(
      { kind: 'sftp', username: USER, host: '127.0.0.1', port: server.port, directory: '/upload' },
      { password: PASSWORD },
    );
    await transport.send({ name: 'again.dat', content: 'same bytes' });
    await transport.send({ name: 'again.dat', content: 'same bytes' });
    expect(await readFile(path.join(root, 'upload', 'again.dat'), 'utf8')).toBe('same bytes');
    expect((await readdir(path.join(root, 'upload'))).filter((f) => f.endsWith('.part'))).toEqual([]);
  });

  it('when another file of the same name is already there, even of the same size, then the send fails as failed and the file there is kept', async () => {
    await writeFile(path.join(root, 'upload', 'taken.dat'), 'the first file');
    const sent = sftpTransport(options).send({ name: 'taken.dat', content: 'the other file' });
    await expect(sent).rejects.toMatchObject({ failure: 'failed', message: expect.stringContaining('taken.dat') });
    expect(await readFile(path.join(root, 'upload', 'taken.dat'), 'utf8')).toBe('the first file');
    expect(await readdir(path.join(root, 'upload'))).not.toContain('taken.dat.part');
  });

  it('when the password is wrong, then the send fails as authentication, with a message that names the user and not the password', async () => {
    const sent = sftpTransport({ ...options, password: 'wrong-password-123' }).send({ name: 'x.dat', content: 'x' });
    const error = await sent.then(
      () => null,
      (e: unknown) => e as PdmpTransportError,
    );
    expect(error).toBeInstanceOf(PdmpTransportError);
    expect(error?.failure).toBe('authentication');
    expect(error?.message).toBe(`SFTP 127.0.0.1:${server.port} refused the login of pharm01: wrong user name or password`);
    expect(error?.message).not.toContain('wrong-password-123');
    expect(JSON.stringify(error)).not.toContain('wrong-password-123');
  });

  it('when the server presents a host key other than the pinned one, then nothing is sent and the send fails as host_key', async () => {
    const sent = sftpTransport({ ...options, hostKeySha256: 'SHA256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }).send({
      name: 'pinned.dat',
      content: 'x',
    });
    await expect(sent).rejects.toMatchObject({ failure: 'host_key' });
    expect(await readdir(path.join(root, 'upload'))).not.toContain('pinned.dat');
  });

  it('when the transport is described, then it shows the user, host, port and folder, never the password', () => {
    expect(sftpTransport(options).description).toBe(`sftp://pharm01@127.0.0.1:${server.port}/upload`);
  });
});

describe('the SFTP transport, against servers that fail', () => {
  it('when nothing listens on the port, then the send fails as unreachable', async () => {
    const port = await closedPort();
    const sent = sftpTransport({
      host: '127.0.0.1',
      port,
      username: USER,
      password: PASSWORD,
      directory: '/',
      readyTimeoutMs: 5_000,
    }).send({
      name: 'x.dat',
      content: 'x',
    });
    await expect(sent).rejects.toMatchObject({ failure: 'unreachable', message: expect.stringContaining('ECONNREFUSED') });
  });

  it('when the server accepts the connection and never answers, then the send fails as timeout once the ready timeout passes', async () => {
    const silent = await startSilentServer();
    try {
      const transport = sftpTransport({
        host: '127.0.0.1',
        port: silent.port,
        username: USER,
        password: PASSWORD,
        directory: '/',
        readyTimeoutMs: 300,
      });
      await expect(transport.send({ name: 'x.dat', content: 'x' })).rejects.toMatchObject({ failure: 'timeout' });
    } finally {
      await silent.close();
    }
  });

  it('when the server logs in and then never answers, then the send fails as timeout once the send timeout passes', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'pdmp-sftp-stall-'));
    const stalled = await startSftpServer({ root, username: USER, password: PASSWORD, stall: true });
    try {
      const transport = sftpTransport({
        host: '127.0.0.1',
        port: stalled.port,
        username: USER,
        password: PASSWORD,
        directory: '/',
        sendTimeoutMs: 300,
      });
      await expect(transport.send({ name: 'x.dat', content: 'x' })).rejects.toMatchObject({
        failure: 'timeout',
        message: `sending x.dat to SFTP 127.0.0.1:${stalled.port} took too long`,
      });
    } finally {
      await stalled.close();
      await rm(root, { recursive: true, force: true });
    }
  });

  it('when an SFTP transport has no password, then it cannot be created', () => {
    expect(() => createPdmpTransport({ kind: 'sftp', username: USER, host: 'h', port: 22, directory: '/' })).toThrow(
      'has no password configured',
    );
  });
});
