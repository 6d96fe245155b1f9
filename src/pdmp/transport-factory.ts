import { folderTransport } from './folder-transport.js';
import { type PdmpTransport, PdmpTransportError } from './pdmp-transport.js';
import { sftpTransport, type SftpTransportOptions } from './sftp-transport.js';
import type { PdmpTransportConfig } from './transport-config.js';

/** The SFTP settings that are not in the URL: the password (a secret) and the bounds of each wait. */
export type SftpSecrets = Pick<SftpTransportOptions, 'password' | 'readyTimeoutMs' | 'sendTimeoutMs' | 'hostKeySha256'>;

/** The transport a state's configuration names; an SFTP one without its password cannot send. */
export function createPdmpTransport(config: PdmpTransportConfig, sftp?: Partial<SftpSecrets>): PdmpTransport {
  switch (config.kind) {
    case 'folder':
      return folderTransport(config.path);
    case 'sftp': {
      const password = sftp?.password;
      if (password === undefined || password === '') {
        throw new PdmpTransportError('authentication', `SFTP ${config.host}:${config.port} has no password configured`);
      }
      return sftpTransport({ ...config, ...sftp, password });
    }
  }
}
