import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { buildApp } from '../app.js';
import { openRuntime } from '../bootstrap.js';
import { loadConfig } from '../config.js';

/**
 * `node dist/cli/openapi.js <file>`: writes the OpenAPI document the server publishes at /openapi.json
 * (of FULFILLMENT_ENV, development by default) to `<file>`, or to standard output without one.
 * The app is built in this process on a throw-away SQLite database: no server, network or data
 * folder is needed, so that `npm run lint` can check the document offline on a clean clone.
 */
async function main(out: string | undefined): Promise<void> {
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
      const document = `${JSON.stringify(app.swagger(), null, 2)}\n`;
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

main(process.argv[2]).catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
