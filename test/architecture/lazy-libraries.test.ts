import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '../../src');

/**
 * Libraries a server loads only when it needs them: the password-strength lists (about 60 MB of
 * memory) are needed only when a password is set, never by a partner's request (issue 19: peak RSS
 * under 200 MB). A static import would load them at start; only `import type` and `import()` may name them.
 */
const LOADED_ON_FIRST_USE = ['@zxcvbn-ts/core', '@zxcvbn-ts/language-common', '@zxcvbn-ts/language-en'];

describe('libraries loaded on first use', () => {
  it('when src/ is read, then no module imports them statically (only types, or import() when needed)', () => {
    const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    const offenders: string[] = [];
    for (const file of files) {
      const text = readFileSync(path.join(SRC, file), 'utf8');
      for (const match of text.matchAll(/^\s*(import|export)\b(?!\s+type\b)[^;]*?\bfrom\s+'([^']+)'/gms)) {
        if (LOADED_ON_FIRST_USE.includes(match[2] ?? '')) offenders.push(`${file}: ${match[2] ?? ''}`);
      }
    }
    expect(offenders).toEqual([]);
    // The rule is not empty: the password check does load them, by import().
    expect(readFileSync(path.join(SRC, 'staff/password-strength.ts'), 'utf8')).toContain("import('@zxcvbn-ts/language-en')");
  });
});
