import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
/** Where a name exported by src/ may be used: the server, its tests and scripts, the console, the examples. */
const READERS = ['src', 'test', 'scripts', 'console/src', 'examples', 'clients/typescript/src'];
const DECLARATION =
  /^export (?:async )?(?:function\*? |const |let |class |abstract class |interface |type |enum )([A-Za-z_$][\w$]*)/gm;

function files(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(ts|tsx|js|mjs)$/.test(entry.name) && !entry.parentPath.includes('generated'))
    .map((entry) => path.relative(ROOT, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'));
}

/**
 * Every name src/ exports is used somewhere (issue 38, item 3): an export no one imports is dead
 * code that still has to be read and kept compiling. A name counts as used when it appears, as a
 * word, in a file other than its own or a second time in its own (a name exported but used only in
 * its own file is not checked here). Migrations are frozen and left out.
 */
describe('exports', () => {
  it('when src/ is read, then every name it exports is used outside its own file', () => {
    const text = new Map(READERS.flatMap(files).map((file) => [file, readFileSync(path.join(ROOT, file), 'utf8')]));
    const words = new Map<string, Set<string>>();
    for (const [file, source] of text) {
      for (const word of source.match(/[A-Za-z_$][\w$]*/g) ?? []) {
        let where = words.get(word);
        if (where === undefined) words.set(word, (where = new Set()));
        where.add(file);
      }
    }
    const unused = [...text]
      .filter(([file]) => file.startsWith('src/') && !file.includes('/migrations/'))
      .flatMap(([file, source]) =>
        [...source.matchAll(DECLARATION)]
          .map((match) => match[1] ?? '')
          .filter((name) => [...(words.get(name) ?? [])].every((where) => where === file))
          .filter(
            (name) => (source.match(new RegExp(`(?<![\\w$])${name.replace('$', '\\$')}(?![\\w$])`, 'g')) ?? []).length === 1,
          )
          .map((name) => `${file}: ${name}`),
      );
    expect(unused, 'remove the export (or the code), or use it').toEqual([]);
  });
});
