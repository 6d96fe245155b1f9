import { defineConfig } from 'vitest/config';

/**
 * The console's browser tests (`npm run test:console`, run by .ci/run after the fault suite):
 * Debian's Chromium, driven by playwright-core, against the real built server (console included)
 * on a SQLite file. Its files run one at a time: each starts its own server and browser, and a
 * browser is heavy enough that several at once would only make each slower.
 */
export default defineConfig({
  test: {
    include: ['test/console/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
