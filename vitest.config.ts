import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import SlowestFirst from './test/helpers/slowest-first.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The fault suite and the console's browser tests have runs of their own (npm run test:faults,
    // vitest.faults.config.ts; npm run test:console, vitest.console.config.ts).
    exclude: ['test/faults/**', 'test/console/**', 'node_modules/**'],
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 20_000,
    hookTimeout: 90_000,
    pool: 'forks',
    // Vitest's default is one worker per core but one: a single worker on a 2-core machine. The files
    // mostly wait (on PostgreSQL, child processes, sockets), and each has its databases, ports and
    // Redis keys of its own, so two per core keep the cores busy (four on CI's two). At most eight:
    // each worker holds PostgreSQL connections (a pool of 5 per test application), and PostgreSQL
    // allows 100. VITEST_MAX_WORKERS overrides.
    maxWorkers: Math.min(8, 2 * availableParallelism()),
    // A worker runs its files one after another in the same process, so that the sources and the
    // password checker's dictionaries load once per worker rather than once per file (a third of
    // the CPU time of a run). Nothing a file changes outlives it: no module mocks, and every test
    // restores the fake timers and spies it sets.
    isolate: false,
    sequence: { sequencer: SlowestFirst },
  },
});
