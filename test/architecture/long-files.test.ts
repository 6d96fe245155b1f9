import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '../../src');
const LIMIT = 250;
const REASON = /^\/\/ Over 250 lines: \S.{20,}/;

/**
 * A file past 250 lines is asking to be split (STYLE.md, "Feature folders, one role per file";
 * issue 38): one in src/ either is split or says at its top, on its first line, why it is not
 * (`// Over 250 lines: <the reason>`).
 */
describe('long files', () => {
  it('when a file of src/ has more than 250 lines, then its first line gives the reason', () => {
    const unexplained = readdirSync(SRC, { withFileTypes: true, recursive: true })
      .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
      .map((entry) => path.join(entry.parentPath, entry.name))
      .flatMap((file) => {
        const lines = readFileSync(file, 'utf8').split('\n');
        const count = lines.at(-1) === '' ? lines.length - 1 : lines.length;
        return count > LIMIT && !REASON.test(lines[0] ?? '') ? [`${path.relative(SRC, file)} (${String(count)} lines)`] : [];
      });
    expect(unexplained, 'split it, or write `// Over 250 lines: <why>` as its first line').toEqual([]);
  });

  it('when a reason is too short to say anything, then it does not count', () => {
    expect(REASON.test('// Over 250 lines: long.')).toBe(false);
    expect(REASON.test('// Over 250 lines: one table of commands, from which the help is generated.')).toBe(true);
  });
});
