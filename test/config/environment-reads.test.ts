import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SETTINGS } from '../../src/config/settings.js';

const SRC = path.resolve(import.meta.dirname, '../../src');
/** The one module that reads variables by a computed name: the declared ones, each by its declaration. */
const READS_BY_DECLARATION = 'config/read-settings.ts';

/** The variables a module reads by name (`process.env.X`, `env.X`, `env['X']`), and its reads no name can be checked for. */
function environmentReads(text: string): { named: string[]; unchecked: string[] } {
  const named = [...text.matchAll(/\benv(?:\.([A-Z][A-Z0-9_]*)\b|\[\s*(['"`])([A-Z][A-Z0-9_]*)\2\s*\])/g)].map(
    (match) => match[1] ?? match[3] ?? '',
  );
  const unchecked = [
    // env[someName], env[`X_${suffix}`]
    ...text.matchAll(/\benv\[(?!\s*(['"`])[A-Z][A-Z0-9_]*\1\s*\])[^\]]*\]/g),
    // const { X } = process.env
    ...text.matchAll(/\}\s*=\s*(?:process\.)?env\b/g),
  ].map((match) => match[0]);
  return { named, unchecked };
}

function sourceFiles(): string[] {
  return readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'));
}

describe('the environment variables src/ reads', () => {
  it('when src/ is scanned, then every variable read by name is declared in src/config/*.settings.ts', () => {
    const undeclared: string[] = [];
    const found = new Set<string>();
    for (const file of sourceFiles()) {
      for (const name of environmentReads(readFileSync(path.join(SRC, file), 'utf8')).named) {
        found.add(name);
        if (!Object.hasOwn(SETTINGS, name)) undeclared.push(`${file}: ${name}`);
      }
    }
    expect(undeclared).toEqual([]);
    // The rule is not empty: the command lines read these two by name.
    expect([...found]).toEqual(expect.arrayContaining(['ADMIN_TOKEN', 'FULFILLMENT_ENV']));
  });

  it('when src/ is scanned, then no module but the settings reader reads a variable by a computed name or destructures the environment', () => {
    const offenders = sourceFiles()
      .filter((file) => file !== READS_BY_DECLARATION)
      .flatMap((file) =>
        environmentReads(readFileSync(path.join(SRC, file), 'utf8')).unchecked.map((read) => `${file}: ${read}`),
      );
    expect(offenders).toEqual([]);
  });

  it('when a module reads an undeclared variable in any of the ways, then the scan finds it', () => {
    const text = [
      "const a = process.env.NEW_SETTING ?? '';",
      "const b = io.env['OTHER_SETTING'];",
      'const c = env[name];',
      'const { THIRD } = process.env;',
      "if (config.env === 'production') return;",
    ].join('\n');
    expect(environmentReads(text)).toEqual({
      named: ['NEW_SETTING', 'OTHER_SETTING'],
      unchecked: ['env[name]', '} = process.env'],
    });
  });
});
