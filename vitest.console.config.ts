import { defineConfig } from 'vitest/config';

/**
 * The console's browser tests (`npm run test:console`, run by .ci/run after the fault suite):
 * Debian's Chromium, driven by playwright-core, against the real built server (console included)
 * on a SQLite file. One browser serves the whole run (test/console/browser-setup.ts), each file in
 * contexts of its own; two files run at once, each with its own server, since a file mostly waits
 * on its pages and its server.
 */
export default defineConfig({
  test: {
    include: ['test/console/**/*.test.ts'],
    globalSetup: ['test/console/browser-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 2,
  },
});
