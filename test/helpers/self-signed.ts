import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

export interface SelfSignedCertificate {
  certFile: string;
  keyFile: string;
  cert: Buffer;
  key: Buffer;
}

/**
 * A self-signed certificate for `localhost` and `127.0.0.1`, valid one day, made with openssl into
 * `dir` for this run: nothing is shipped with the tests. A client trusts it with `ca: cert`, and a
 * server process with `NODE_EXTRA_CA_CERTS=<certFile>`.
 */
export async function createSelfSignedCertificate(dir: string): Promise<SelfSignedCertificate> {
  const certFile = path.join(dir, 'cert.pem');
  const keyFile = path.join(dir, 'key.pem');
  await promisify(execFile)('openssl', [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-subj',
    '/CN=localhost',
    '-addext',
    'subjectAltName=DNS:localhost,IP:127.0.0.1',
    '-days',
    '1',
    '-keyout',
    keyFile,
    '-out',
    certFile,
  ]);
  return { certFile, keyFile, cert: readFileSync(certFile), key: readFileSync(keyFile) };
}
