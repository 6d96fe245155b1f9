import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The fault suite has its own run (npm run test:faults, vitest.faults.config.ts).
    exclude: ['test/faults/**', 'node_modules/**'],
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
