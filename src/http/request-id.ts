import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** An incoming X-Request-Id is echoed when it is well formed (1–128 safe characters). */
const WELL_FORMED = /^[A-Za-z0-9._:@-]{1,128}$/;

export function genRequestId(req: IncomingMessage): string {
  const incoming = req.headers['x-request-id'];
  if (typeof incoming === 'string' && WELL_FORMED.test(incoming)) return incoming;
  return randomUUID();
}
