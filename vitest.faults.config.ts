import { defineConfig } from 'vitest/config';

/**
 * The fault suite (`npm run test:faults`, run by .ci/run after `npm test`): real server processes
 * killed, restarted, starved of their webhook receiver, fed worst cases and slow clients, on SQLite
 * and PostgreSQL. Its files run one at a time, so that the worst-case answer times it asserts are
 * measured on a machine nothing else in the suite is loading.
 */
export default defineConfig({
  test: {
    include: ['test/faults/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
