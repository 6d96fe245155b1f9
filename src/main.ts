import { buildApp } from './app.js';
import { openRuntime } from './bootstrap.js';
import { seedSandbox } from './clinics/sandbox-seed.js';
import { ConfigError, loadConfig, type Config } from './config.js';

/** Starts the HTTP server: config → database → migrate → seed → app → listen; closes gracefully. */
async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }

  const runtime = await openRuntime(config);
  const { ctx } = runtime;
  const seed = await seedSandbox(ctx);
  const app = await buildApp(ctx);

  await app.listen({ host: config.host, port: config.port });
  printBanner(config, seed);

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    await app.close();
    await runtime.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

function printBanner(config: Config, seed: { clinicId: string; apiKey: string } | null): void {
  const lines = [
    '',
    `Partner Fulfillment API (${config.env}) on http://${config.host}:${config.port}`,
    `  database: ${config.database.kind === 'sqlite' ? config.database.filename : 'PostgreSQL'}`,
    `  API reference: http://${config.host}:${config.port}/docs`,
  ];
  if (config.adminTokenGenerated) {
    lines.push(`  operator token (generated for this run; set ADMIN_TOKEN to keep one): ${config.adminToken}`);
  }
  if (seed) {
    lines.push(
      '',
      '  First start: seeded a sandbox clinic, its formulary and a development API key.',
      `  clinic_id: ${seed.clinicId}`,
      `  x-api-key: ${seed.apiKey}`,
      '  This key is shown only once: keep it.',
    );
  }
  process.stdout.write(`${lines.join('\n')}\n\n`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
