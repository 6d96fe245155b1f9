import path from 'node:path';
import { defineConfig } from 'vitest/config';

/**
 * The on-demand measurements of test/perf (`npx vitest run --config test/perf/vitest.config.ts`):
 * they print figures rather than assert them, so the main run (vitest.config.ts, `*.test.ts`) leaves
 * them out by their name, `*.print.ts`.
 */
export default defineConfig({
  root: path.resolve(import.meta.dirname, '../..'),
  test: {
    include: ['test/perf/**/*.print.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 300_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
