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
    // The files of a worker in one process, as the main suite's (vitest.config.ts): the test helpers
    // and their sources load once per worker, not once per file (22 processes of about 2.6 s of CPU
    // each). Each file starts its own server and browser contexts, and closes them.
    isolate: false,
  },
});
