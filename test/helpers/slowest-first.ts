import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that take longest (CONTRIBUTING.md, "How long the suite takes"), slowest first. With
 * several workers a run lasts at least as long as its slowest file, and one started last ends last:
 * these start first, so that the short files fill the other workers meanwhile.
 */
const SLOWEST = [
  'test/bench/bench-smoke.test.ts',
  'test/instances/shutdown.test.ts',
  'test/dashboard/dashboard-scale.test.ts',
  'test/startup/two-commands.test.ts',
  'test/http/worst-case-bodies.test.ts',
  'test/startup/development-start.test.ts',
  'test/admin/cli.test.ts',
  'test/admin/cli-binary.test.ts',
  'test/http/text-safety.test.ts',
  'test/webhooks/secret-encryption.test.ts',
  'test/staff/identity-attacks.test.ts',
  'test/webhooks/delivery.test.ts',
  'test/webhooks/throttling.test.ts',
  'test/http/rate-limit.test.ts',
];

/**
 * Vitest's own order (the durations it remembers from the last run on this machine; on a clean
 * clone, the largest files first), with the known slowest files moved to the front.
 */
export default class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification) => {
      const index = SLOWEST.findIndex((file) => spec.moduleId.endsWith(file));
      return index === -1 ? SLOWEST.length : index;
    };
    return sorted
      .map((spec, order) => ({ spec, order }))
      .sort((a, b) => rank(a.spec) - rank(b.spec) || a.order - b.order)
      .map(({ spec }) => spec);
  }
}
