import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { assertFileName, type PdmpFile, type PdmpTransport, PdmpTransportError } from './pdmp-transport.js';

/**
 * `folder:<path>`: a file appears whole or not at all. It is written under a hidden temporary name
 * in the same folder, flushed to disk, then renamed, so that whatever watches the folder (a relay to
 * the PDMP, an operator) never reads half a file, and a crash leaves at most a `.tmp` behind. A file
 * sent again under the same name replaces the one before (a resend of the same day's file).
 */
export function folderTransport(folder: string): PdmpTransport {
  return {
    description: `folder:${folder}`,
    async send(file: PdmpFile): Promise<void> {
      assertFileName(file.name);
      const target = path.join(folder, file.name);
      const temporary = path.join(folder, `.${file.name}.${randomBytes(6).toString('hex')}.tmp`);
      try {
        await mkdir(folder, { recursive: true });
        const handle = await open(temporary, 'wx', 0o600);
        try {
          await handle.writeFile(file.content);
          await handle.sync();
        } finally {
          await handle.close();
        }
        await rename(temporary, target);
      } catch (error) {
        await rm(temporary, { force: true }).catch(() => undefined);
        const code = (error as NodeJS.ErrnoException).code ?? 'an error';
        throw new PdmpTransportError('failed', `writing ${file.name} into folder:${folder} failed (${code})`, { cause: error });
      }
    },
  };
}
