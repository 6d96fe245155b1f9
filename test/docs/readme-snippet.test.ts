import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The README's TypeScript snippet is examples/typed-client.ts, which `npm run typecheck` compiles
 * (tsconfig.test.json includes examples/): the two must stay identical, so that the snippet a partner
 * copies compiles as written (issue 28: its `secret`, `rawBody` and `request` were once undefined).
 */
const ROOT = path.resolve(import.meta.dirname, '../..');

describe('the README\u2019s typed client snippet', () => {
  it('when the README shows TypeScript, then it is examples/typed-client.ts, line for line', () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const snippets = [...readme.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match) => match[1]);
    expect(snippets).toEqual([readFileSync(path.join(ROOT, 'examples/typed-client.ts'), 'utf8')]);
  });
});
