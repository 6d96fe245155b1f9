import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

/**
 * The V8 heap's bounds the server and the worker start with (issue 28, item 4; docs/performance.md,
 * "Memory"): a young generation of 2 × 8 MB instead of 2 × 16 MB, and an old generation capped at
 * 512 MB, which also makes V8 grow it by about 1.4× the live heap after each full collection instead
 * of up to 4× (the cap of a machine with more than 2 GB).
 */
const HEAP_FLAGS = '--max-semi-space-size=8 --max-old-space-size=512';

const { scripts } = JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../../package.json'), 'utf8')) as {
  scripts: Record<string, string>;
};

describe('the heap bounds of npm start and npm run worker', () => {
  it('when the server or the worker is started, then node gets the heap bounds (the benchmark reads them from here)', () => {
    expect(scripts.start).toBe(`node ${HEAP_FLAGS} dist/main.js`);
    expect(scripts.worker).toBe(`node ${HEAP_FLAGS} dist/worker.js`);
  });

  it('when node runs with those flags, then V8 takes them: a heap limit of the old generation plus the young one', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [
      ...HEAP_FLAGS.split(' '),
      '-p',
      'require("node:v8").getHeapStatistics().heap_size_limit',
    ]);
    const limitMb = Number(stdout) / 1024 / 1024;
    // 512 MB old + 3 × 8 MB young (two semi-spaces and the new large-object space); without the
    // flags this machine's limit is several GB.
    expect(limitMb).toBeGreaterThanOrEqual(512);
    expect(limitMb).toBeLessThanOrEqual(512 + 3 * 8);
  });
});
