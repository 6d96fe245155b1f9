import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const CONSOLE = path.resolve(import.meta.dirname, '../../console/src');
const GENERATED = 'generated';

/** The console's own modules (not the generated types), relative to console/src. */
function consoleFiles(): string[] {
  return readdirSync(CONSOLE, { recursive: true, encoding: 'utf8' })
    .filter((file) => /\.tsx?$/.test(file) && !file.startsWith(`${GENERATED}${path.sep}`))
    .sort();
}

const parse = (file: string, text: string) =>
  ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);

/** Every object type written out in a module: interfaces and type literals, with their property names. */
function objectTypes(source: ts.SourceFile): { names: string[]; line: number }[] {
  const found: { names: string[]; line: number }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isInterfaceDeclaration(node) || ts.isTypeLiteralNode(node)) {
      const names = node.members
        .filter(ts.isPropertySignature)
        .map((member) => member.name.getText(source).replace(/^['"]|['"]$/g, ''));
      found.push({ names, line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The property names of every object the generated types describe (answers, bodies, their nested objects). */
function apiShapes(): Set<string>[] {
  return readdirSync(path.join(CONSOLE, GENERATED))
    .filter((file) => file.endsWith('.ts'))
    .flatMap((file) => objectTypes(parse(file, readFileSync(path.join(CONSOLE, GENERATED, file), 'utf8'))))
    .map(({ names }) => new Set(names));
}

/** Shapes of this many fields or more, all of them fields of one API object, are copies. */
const COPIED_FIELDS = 3;

/**
 * The object types of `text` that copy an API object by hand: three or more fields, every one a
 * field of the same object of the generated types. A page that keeps part of an answer says so
 * with `Pick<OperatorData<…>, …>` instead, which follows the API when it changes.
 */
function copiedShapes(file: string, text: string, shapes: Set<string>[]): string[] {
  return objectTypes(parse(file, text))
    .filter(({ names }) => names.length >= COPIED_FIELDS && shapes.some((shape) => names.every((name) => shape.has(name))))
    .map(({ names, line }) => `${file}:${line} { ${names.join(', ')} }`);
}

/** Calls of api() given their answer's type by hand (`api<Clinic>(…)`), which the compiler would take on trust. */
function handTypedCalls(file: string, text: string): string[] {
  return text
    .split('\n')
    .flatMap((line, index) => (/(?<!function )\bapi\s*</.test(line) ? [`${file}:${index + 1}: ${line.trim()}`] : []));
}

describe('the console typed from the OpenAPI document (console/src/generated, npm run generate:client)', () => {
  const shapes = apiShapes();

  it('when the console is read, then no object type copies the fields of an API answer or body by hand', () => {
    const offenders = consoleFiles().flatMap((file) =>
      copiedShapes(file, readFileSync(path.join(CONSOLE, file), 'utf8'), shapes),
    );
    expect(offenders).toEqual([]);
  });

  it('when a module declares a shape the operator API answers, then the rule finds it', () => {
    // What console/src/pages/clinic/types.ts said before the types were generated.
    const copied = 'export interface Clinic { clinic_id: string; name: string; free_shipping: boolean; created_at: string }';
    expect(copiedShapes('pages/clinic/types.ts', copied, shapes)).toEqual([
      'pages/clinic/types.ts:1 { clinic_id, name, free_shipping, created_at }',
    ]);
    // An inline narrowing of an answer is a copy too; the form's own state is not.
    const inline = 'const line = (item: { medication: string; dose: string; quantity: number }) => item.dose;';
    expect(copiedShapes('pages/x.tsx', inline, shapes)).toHaveLength(1);
    expect(copiedShapes('pages/x.tsx', 'interface Row { key: number; state: string; price: string }', shapes)).toEqual([]);
  });

  it('when api() is called, then its answer is typed by the operation, never by a type argument given by hand', () => {
    const offenders = consoleFiles().flatMap((file) => handTypedCalls(file, readFileSync(path.join(CONSOLE, file), 'utf8')));
    expect(offenders).toEqual([]);
    expect(handTypedCalls('pages/x.tsx', "const clinic = await api<Clinic>('GET', `/api/admin/clinics/${id}`);")).toHaveLength(1);
    // api() is the console's one way to the server: nothing else fetches (an untyped answer).
    const fetching = consoleFiles().filter((file) => /\bfetch\s*\(/.test(readFileSync(path.join(CONSOLE, file), 'utf8')));
    expect(fetching).toEqual(['api.ts']);
  });

  it('when the generated types are read, then they hold the operator API and the portal API', () => {
    const operator = readFileSync(path.join(CONSOLE, GENERATED, 'operator.ts'), 'utf8');
    expect(operator).toMatch(/^\/\/ Generated .*do not edit\./);
    expect(operator).toContain("'/api/admin/clinics/{clinicId}'");
    expect(operator).not.toContain("'/api/external/");
    const portal = readFileSync(path.join(CONSOLE, GENERATED, 'portal.ts'), 'utf8');
    expect(portal).toMatch(/^\/\/ Generated .*do not edit\./);
    expect(portal).not.toMatch(/'\/api\/(admin|external)\//);
  });
});
