import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { buildApp } from '../app.js';
import { openRuntime } from '../bootstrap.js';
import { loadConfig } from '../config.js';
import { operatorDocument, partnerDocument, portalDocument } from '../openapi.js';

/** Which part of the document to write: the partner's, the operator's, the portal's. */
type Part = 'partner' | 'operator' | 'portal';

const PARTS: Record<Part, (published: object) => Record<string, unknown>> = {
  partner: partnerDocument,
  operator: operatorDocument,
  portal: portalDocument,
};

/**
 * `node dist/cli/openapi.js [--partner | --operator | --portal] <file>`: writes the OpenAPI document
 * the server publishes at /openapi.json (of FULFILLMENT_ENV, development by default) to `<file>`, or
 * to standard output without one: with FULFILLMENT_ENV=production the partner API only, otherwise the
 * whole API. With `--partner`, the partner API only in any environment: in development, the partner
 * API with its sandbox route, what the typed client in clients/typescript is generated from. With
 * `--operator` (the paths under /api/admin) or `--portal` (under /api/portal), that API alone, what
 * the console's types (console/src/generated/) are generated from.
 * The app is built in this process on a throw-away SQLite database: no server, network or data
 * folder is needed, so that `npm run lint` can check the document offline on a clean clone.
 */
async function main(out: string | undefined, part: Part | undefined): Promise<void> {
  const folder = await mkdtemp(path.join(tmpdir(), 'fulfillment-openapi-'));
  try {
    const config = loadConfig({
      FULFILLMENT_ENV: process.env.FULFILLMENT_ENV ?? 'development',
      DATABASE_URL: `sqlite:${path.join(folder, 'openapi.sqlite')}`,
      ADMIN_TOKEN: randomBytes(24).toString('hex'),
      DATA_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      RUN_WORKER: 'false',
      LOG_LEVEL: 'silent',
    });
    const runtime = await openRuntime(config, { redis: false, logger: pino({ level: 'silent' }) });
    try {
      const app = await buildApp(runtime.ctx);
      const only = part ?? (config.env === 'production' ? 'partner' : undefined);
      const published = only === undefined ? app.swagger() : PARTS[only](app.swagger());
      const document = `${JSON.stringify(published, null, 2)}\n`;
      await app.close();
      if (out === undefined) process.stdout.write(document);
      else await writeFile(out, document);
    } finally {
      await runtime.close();
    }
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

const { values, positionals } = parseArgs({
  options: {
    partner: { type: 'boolean', default: false },
    operator: { type: 'boolean', default: false },
    portal: { type: 'boolean', default: false },
  },
  allowPositionals: true,
});
const parts = (Object.keys(PARTS) as Part[]).filter((name) => values[name]);
if (parts.length > 1) {
  process.stderr.write(
    `Give at most one of --partner, --operator and --portal (given: ${parts.map((name) => `--${name}`).join(', ')}).\n`,
  );
  process.exit(2);
}
main(positionals[0], parts[0]).catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
