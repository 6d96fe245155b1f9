import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '../../src');

/**
 * SQL lives in repositories (`*.repository.ts`) and in src/db/ (the dialects, the executor, the
 * migrations), nowhere else (STYLE.md, "All SQL in repositories"; issue 38, item 3): a service asks
 * a repository, so that every query of a table can be found, read and indexed in one place.
 *
 * A module writes SQL when it starts a query (`.selectFrom(`, `.insertInto(`, `.updateTable(`,
 * `.deleteFrom(`, `.replaceInto(`, `.mergeInto(`, `.selectNoFrom(`), writes a `sql` template, or
 * imports a value from 'kysely' (`sql`, `expressionBuilder`…; its types may be imported anywhere).
 *
 * The modules outside repositories and src/db/ allowed to, each with its reason: none today. A new
 * one is added here with its reason, or its query moves to a repository.
 */
const ALLOWED = new Map<string, string>([]);

/** The calls that start a query on a Kysely handle or transaction. */
const QUERY_STARTS = new Set([
  'selectFrom',
  'insertInto',
  'updateTable',
  'deleteFrom',
  'replaceInto',
  'mergeInto',
  'selectNoFrom',
]);

const isSqlTag = (tag: ts.Expression): boolean => ts.isIdentifier(tag) && tag.text === 'sql';

/** Each place of `text` that writes SQL, as `file:line: code`. */
function sqlWritten(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const report = (node: ts.Node) => {
    const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
    found.push(`${file}:${String(line + 1)}: ${node.getText(source).split('\n')[0]?.slice(0, 100) ?? ''}`);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier) && node.moduleSpecifier.text === 'kysely') {
      const clause = node.importClause;
      const values =
        clause !== undefined &&
        clause.phaseModifier !== ts.SyntaxKind.TypeKeyword &&
        (clause.name !== undefined ||
          (clause.namedBindings !== undefined &&
            (ts.isNamespaceImport(clause.namedBindings) ||
              clause.namedBindings.elements.some((element) => !element.isTypeOnly))));
      if (values) report(node);
    } else if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      QUERY_STARTS.has(node.expression.name.text)
    ) {
      report(node);
    } else if (ts.isTaggedTemplateExpression(node) && isSqlTag(node.tag)) {
      report(node);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function sourceFiles(): string[] {
  return readdirSync(SRC, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => f.split(path.sep).join('/'));
}

describe('SQL in repositories and src/db/ only', () => {
  it('when src/ outside repositories and src/db/ is read, then no module starts a query, writes sql`` or imports a kysely value', () => {
    const files = sourceFiles().filter(
      (file) => !file.startsWith('db/') && !file.endsWith('.repository.ts') && !ALLOWED.has(file),
    );
    expect(files.length).toBeGreaterThan(100);
    const offenders = files.flatMap((file) => sqlWritten(file, readFileSync(path.join(SRC, file), 'utf8')));
    expect(offenders).toEqual([]);
  });

  it('when the documented exceptions are read, then each still exists (the list only names real modules)', () => {
    const files = new Set(sourceFiles());
    expect([...ALLOWED.keys()].filter((file) => !files.has(file))).toEqual([]);
  });

  it('when repositories are read, then the check finds their SQL (the rule is not empty)', () => {
    const text = readFileSync(path.join(SRC, 'shipments/shipment.repository.ts'), 'utf8');
    expect(sqlWritten('shipments/shipment.repository.ts', text).length).toBeGreaterThan(0);
    const sample = [
      "import { sql, type SqlBool } from 'kysely';",
      "import type { Selectable } from 'kysely';",
      "import { type Kysely } from 'kysely';",
      "const rows = await db.selectFrom('orders').selectAll().execute();",
      "await trx.insertInto('shipments').values(row).execute();",
      "await trx.updateTable('x').set({ a: 1 }).execute();",
      "await db.deleteFrom('x').execute();",
      'const next = sql<number>`event_sequence + 1`;',
    ].join('\n');
    expect(sqlWritten('sample.ts', sample)).toHaveLength(6);
  });
});
