import { readFileSync } from 'node:fs';
import { createSecureContext } from 'node:tls';
import type { Config } from '../config.js';

/**
 * How the server listens, decided before anything is opened: HTTPS with the configured certificate,
 * or plain HTTP. Throws an Error whose message names the variable to fix (main.ts prints it and
 * exits 1). The in-process test application never listens, so it never comes here.
 */
export function loadHttpsOptions(config: Config): { cert: Buffer; key: Buffer } | null {
  if (config.tls === null) {
    // A production server on plain HTTP is only safe behind a proxy that terminates TLS; that proxy
    // must be named (TRUST_PROXY), and then the API refuses what did not reach it over HTTPS.
    if (config.env === 'production' && config.trustProxy.length === 0) {
      throw new Error(
        'production serves HTTPS: set TLS_CERT_FILE and TLS_KEY_FILE, or TRUST_PROXY when a proxy terminates TLS (see docs/operations.md)',
      );
    }
    return null;
  }
  const cert = readPem('TLS_CERT_FILE', config.tls.certFile);
  const key = readPem('TLS_KEY_FILE', config.tls.keyFile);
  try {
    createSecureContext({ cert, key });
  } catch (error) {
    throw new Error(
      `TLS_CERT_FILE and TLS_KEY_FILE must hold a PEM certificate and its private key: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return { cert, key };
}

function readPem(variable: string, file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error));
    throw new Error(`${variable}: cannot read ${file} (${reason})`);
  }
}
