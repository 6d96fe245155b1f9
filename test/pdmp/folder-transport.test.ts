import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { folderTransport } from '../../src/pdmp/folder-transport.js';
import { PdmpTransportError } from '../../src/pdmp/pdmp-transport.js';

describe('the folder transport', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'pdmp-folder-'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('when a file is sent into a folder that does not exist yet, then the folder is made and the file is there whole, with no temporary file left', async () => {
    const folder = path.join(root, 'data', 'pdmp');
    await folderTransport(folder).send({ name: 'TX_20260302.dat', content: 'TH*4.2A*1*01**20260303*011530*P**~~' });
    expect(await readdir(folder)).toEqual(['TX_20260302.dat']);
    expect(await readFile(path.join(folder, 'TX_20260302.dat'), 'utf8')).toBe('TH*4.2A*1*01**20260303*011530*P**~~');
  });

  it('when the same file is sent again, then it replaces the one before', async () => {
    const transport = folderTransport(root);
    await transport.send({ name: 'a.dat', content: 'first' });
    await transport.send({ name: 'a.dat', content: Buffer.from('second') });
    expect(await readFile(path.join(root, 'a.dat'), 'utf8')).toBe('second');
  });

  it.each(['../escape.dat', '.hidden', 'a/b.dat', ''])(
    'when the file name is %j, then nothing is written and the send fails',
    async (name) => {
      await expect(folderTransport(root).send({ name, content: 'x' })).rejects.toThrow(PdmpTransportError);
      expect(await readdir(root)).toEqual([]);
    },
  );

  it('when the folder cannot be made, then the send fails as failed, naming the file and the folder', async () => {
    const blocker = path.join(root, 'blocker');
    await writeFile(blocker, 'a file where a folder should be');
    const sent = folderTransport(path.join(blocker, 'pdmp')).send({ name: 'a.dat', content: 'x' });
    await expect(sent).rejects.toMatchObject({ failure: 'failed', message: expect.stringContaining('a.dat') });
  });
});
