import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The fault suite and the console's browser tests have runs of their own (npm run test:faults,
    // vitest.faults.config.ts; npm run test:console, vitest.console.config.ts).
    exclude: ['test/faults/**', 'test/console/**', 'node_modules/**'],
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
