import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '../../src');

describe('the ssh2 library', () => {
  it('when src/ is read, then no module imports ssh2 statically: only types, or import() on the first SFTP send', () => {
    const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    const offenders: string[] = [];
    for (const file of files) {
      const text = readFileSync(path.join(SRC, file), 'utf8');
      for (const match of text.matchAll(/^\s*(import|export)\b(?!\s+type\b)[^;]*?\bfrom\s+'([^']+)'/gms)) {
        if (match[2] === 'ssh2') offenders.push(file);
      }
    }
    expect(offenders).toEqual([]);
    // The rule is not empty: the SFTP transport does load it, by import().
    expect(readFileSync(path.join(SRC, 'pdmp/sftp-transport.ts'), 'utf8')).toContain("await import('ssh2')");
  });
});
