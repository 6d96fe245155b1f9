import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '../../src');

/**
 * How a query or a change runs on SQLite or on PostgreSQL is src/db/'s to decide (issue 28): a
 * repository asks for what it needs (lock these rows, this time plus that) and a change is handed to
 * db/execute-change.ts. Elsewhere the dialect may be passed on, never compared or switched on.
 *
 * The one file outside src/db/ allowed to: config/urls.ts reads DATABASE_URL into the kind of
 * database, which is where the dialect comes from.
 */
const ALLOWED = new Set(['config/urls.ts']);

const DIALECT_NAMES = new Set(['postgres', 'sqlite']);
const DIALECT_CLASSES = /^(Postgres|Sqlite)(Adapter|Dialect|Driver|QueryCompiler)$/;

/** Whether `node` names the dialect: an identifier or property called `dialect`, or a literal dialect name. */
function namesDialect(node: ts.Expression): boolean {
  if (ts.isParenthesizedExpression(node)) return namesDialect(node.expression);
  if (ts.isIdentifier(node)) return node.text === 'dialect';
  if (ts.isPropertyAccessExpression(node)) return node.name.text === 'dialect';
  return ts.isStringLiteralLike(node) && DIALECT_NAMES.has(node.text);
}

const COMPARISONS = new Set([
  ts.SyntaxKind.EqualsEqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsEqualsToken,
  ts.SyntaxKind.EqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsToken,
]);

/** Each place of `text` that decides by dialect, as `line: code`. */
function dialectDecisions(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const report = (node: ts.Node) => {
    const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
    found.push(`${file}:${String(line + 1)}: ${node.getText(source).slice(0, 100)}`);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isBinaryExpression(node)) {
      const kind = node.operatorToken.kind;
      if (COMPARISONS.has(kind) && (namesDialect(node.left) || namesDialect(node.right))) report(node);
      if (kind === ts.SyntaxKind.InstanceOfKeyword && DIALECT_CLASSES.test(node.right.getText(source))) report(node);
    } else if (ts.isSwitchStatement(node) && namesDialect(node.expression)) {
      report(node.expression);
    } else if (ts.isCaseClause(node) && namesDialect(node.expression)) {
      report(node.expression);
    } else if (ts.isElementAccessExpression(node) && namesDialect(node.argumentExpression)) {
      // A table of behaviours looked up by dialect (`{ postgres: …, sqlite: … }[dialect]`) decides too.
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

describe('decisions by database dialect', () => {
  it('when src/ outside src/db/ is read, then no file compares or switches on the dialect', () => {
    const files = sourceFiles().filter((file) => !file.startsWith('db/') && !ALLOWED.has(file));
    expect(files.length).toBeGreaterThan(100);
    const offenders = files.flatMap((file) => dialectDecisions(file, readFileSync(path.join(SRC, file), 'utf8')));
    expect(offenders).toEqual([]);
  });

  it('when src/db/ is read, then the check finds its decisions (the rule is not empty)', () => {
    const text = readFileSync(path.join(SRC, 'db/execute-change.ts'), 'utf8');
    expect(dialectDecisions('db/execute-change.ts', text).length).toBeGreaterThan(0);
    const sample = [
      "if (ctx.dialect === 'postgres') a();",
      "switch (dialect) { case 'sqlite': break; }",
      'const run = { postgres: a, sqlite: b }[handle.dialect];',
      'if (adapter instanceof PostgresAdapter) a();',
    ].join('\n');
    expect(dialectDecisions('sample.ts', sample)).toHaveLength(5);
  });
});
