// Renames declarations and files by a declarative list (scripts/identifier-renames.mjs), through the
// TypeScript language service, so that one word names one thing (CONTRIBUTING.md, "Glossary").
//
//   node scripts/rename-identifiers.mjs            apply the list (identifiers first, then files)
//   node scripts/rename-identifiers.mjs --dry-run  print what would change, write nothing
//   node scripts/rename-identifiers.mjs --count    count identifiers that still use each glossary word
//
// Why the language service and not text: a rename follows the symbol (imports, JSX, members, shorthand
// properties) and nothing else, so string literals, object keys that are serialized, route paths, SQL
// and environment variables cannot change. A shorthand property keeps its key (`{ staff }` becomes
// `{ staff: member }`). Any location that is not an identifier, or lies in a generated file, stops
// the run before anything is written.
//
// Why declarations are found by name and file: files move. An entry names the file where its
// declaration was; when that file is gone, the declaration is looked up by name across the project,
// and more than one candidate stops the run. An entry already applied (the old name gone, the new
// one declared) is skipped, so the list can be run again on a later tree.
import { execFileSync } from 'node:child_process';
import console from 'node:console';
import fs from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { FILE_RENAMES, IDENTIFIER_RENAMES, GLOSSARY_WORDS } from './identifier-renames.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = new Set(process.argv.slice(2));
const DRY = args.has('--dry-run');
const rel = (f) => path.relative(ROOT, f).split(path.sep).join('/');
const abs = (f) => path.resolve(ROOT, f);
const isGenerated = (f) => /\/generated\//.test(rel(f)) || rel(f).startsWith('clients/typescript/src/generated');

class Stop extends Error {}
const stop = (message) => {
  throw new Stop(message);
};

/** The project's two programs: the server (with tests and scripts) and the console (Bundler, JSX). */
function projects() {
  const parse = (config, extra) => {
    const parsed = ts.getParsedCommandLineOfConfigFile(abs(config), extra, {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => stop(ts.flattenDiagnosticMessageText(d.messageText, '\n')),
    });
    return parsed;
  };
  const server = parse('tsconfig.test.json', { allowJs: true, checkJs: false });
  const scripts = gitFiles('scripts').filter((f) => /\.(js|mjs)$/.test(f) && !f.endsWith('rename-identifiers.mjs'));
  const browser = parse('console/tsconfig.json', {});
  return [
    { name: 'server', options: server.options, files: [...server.fileNames, ...scripts.map(abs)] },
    { name: 'console', options: browser.options, files: browser.fileNames },
  ].map((p) => ({ ...p, files: new Set(p.files.map((f) => path.resolve(f))) }));
}

function gitFiles(...dirs) {
  return execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', ...dirs], { cwd: ROOT, encoding: 'utf8' })
    .split('\n')
    .filter((f) => f !== '' && fs.existsSync(abs(f)));
}

/** Files as this run sees them: the disk, and the run's own edits on top. */
const texts = new Map();
const versions = new Map();
const read = (f) => texts.get(f) ?? (fs.existsSync(f) ? fs.readFileSync(f, 'utf8') : undefined);
function write(f, text) {
  texts.set(f, text);
  versions.set(f, (versions.get(f) ?? 0) + 1);
  if (!DRY) fs.writeFileSync(f, text);
}

function service(project) {
  const host = {
    getScriptFileNames: () => [...project.files],
    getScriptVersion: (f) => String(versions.get(path.resolve(f)) ?? 0),
    getScriptSnapshot: (f) => {
      const text = read(path.resolve(f));
      return text === undefined ? undefined : ts.ScriptSnapshot.fromString(text);
    },
    getCurrentDirectory: () => ROOT,
    getCompilationSettings: () => project.options,
    getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
    fileExists: (f) => read(path.resolve(f)) !== undefined,
    readFile: (f) => read(path.resolve(f)),
    readDirectory: ts.sys.readDirectory,
    directoryExists: ts.sys.directoryExists,
    getDirectories: ts.sys.getDirectories,
    realpath: ts.sys.realpath,
  };
  return { ...project, ls: ts.createLanguageService(host, ts.createDocumentRegistry()) };
}

/** Parsed files, kept while their text is unchanged: an entry looked up across the project reads them all. */
const parsed = new Map();

function sourceFile(f) {
  const text = read(f);
  const kept = parsed.get(f);
  if (kept?.text === text) return kept.file;
  const file = parse(f, text);
  parsed.set(f, { text, file });
  return file;
}

function parse(f, text) {
  const kind = f.endsWith('.tsx') ? ts.ScriptKind.TSX : /\.(js|mjs)$/.test(f) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  return ts.createSourceFile(f, text, ts.ScriptTarget.Latest, true, kind);
}

/** Keys of object literals: renamed only by a `key` entry, which names the function or variable holding them. */
const KEY_KINDS = new Set([ts.SyntaxKind.PropertyAssignment, ts.SyntaxKind.ShorthandPropertyAssignment]);
const MEMBER_KINDS = new Set([
  ts.SyntaxKind.PropertySignature,
  ts.SyntaxKind.PropertyDeclaration,
  ts.SyntaxKind.MethodDeclaration,
  ts.SyntaxKind.MethodSignature,
  ts.SyntaxKind.GetAccessor,
  ts.SyntaxKind.SetAccessor,
]);
const DECLARATION_KINDS = new Set([
  ts.SyntaxKind.FunctionDeclaration,
  ts.SyntaxKind.ClassDeclaration,
  ts.SyntaxKind.InterfaceDeclaration,
  ts.SyntaxKind.TypeAliasDeclaration,
  ts.SyntaxKind.EnumDeclaration,
  ts.SyntaxKind.VariableDeclaration,
  ts.SyntaxKind.Parameter,
  ts.SyntaxKind.NamespaceImport,
  ts.SyntaxKind.BindingElement,
]);
/** Names a file brings into scope besides its declarations: a rename onto one of them would clash. */
const IMPORT_KINDS = new Set([ts.SyntaxKind.ImportSpecifier, ts.SyntaxKind.ImportClause]);

/** The name nodes of the declarations called `name` in file `f` (members only when `member`). */
function declarationsIn(f, name, { member = false, key = false, container, imports = false } = {}) {
  const found = [];
  const visit = (node, owner) => {
    const named = node.name && ts.isIdentifier(node.name) && node.name.text === name;
    const kinds = key ? KEY_KINDS : member ? MEMBER_KINDS : DECLARATION_KINDS;
    const kindOk = kinds.has(node.kind) || (imports && IMPORT_KINDS.has(node.kind));
    if (named && kindOk && (container === undefined || owner === container)) found.push(node.name);
    const isOwner =
      ts.isClassDeclaration(node) ||
      ts.isInterfaceDeclaration(node) ||
      ts.isFunctionDeclaration(node) ||
      (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name)) ||
      ts.isTypeAliasDeclaration(node);
    ts.forEachChild(node, (child) => visit(child, isOwner && node.name ? node.name.text : owner));
  };
  visit(sourceFile(f), undefined);
  return found;
}

/**
 * Where the entry's declaration is now: its file if it is still there, else the one file that declares
 * it. Several declarations in one file are returned together (a TypeBox schema and its type share a
 * name); the caller checks that they are one symbol.
 */
function locate(entry, name, allFiles) {
  const declared = abs(entry.file);
  if (read(declared) !== undefined) {
    const here = declarationsIn(declared, name, entry);
    return here.length > 0 ? { file: declared, nodes: here } : undefined;
  }
  const files = allFiles.filter((f) => declarationsIn(f, name, entry).length > 0);
  let file = files[0];
  if (files.length > 1) {
    const sameBase = files.filter((f) => path.basename(f) === path.basename(declared));
    if (sameBase.length !== 1)
      stop(`${entry.file} moved, and ${name} is declared in several files: ${files.map(rel).join(', ')}`);
    file = sameBase[0];
  }
  return file === undefined ? undefined : { file, nodes: declarationsIn(file, name, entry) };
}

/** The identifier at `pos` in `f`, or undefined when the location is not one (a string, a comment). */
function identifierAt(f, pos) {
  let hit;
  const visit = (node) => {
    if (node.getStart() <= pos && pos < node.getEnd()) {
      if ((ts.isIdentifier(node) || ts.isPrivateIdentifier(node)) && node.getStart() === pos) hit = node;
      ts.forEachChild(node, visit);
    }
  };
  visit(sourceFile(f));
  return hit;
}

/** Every edit of one rename: its locations in both programs, re-exports followed, each one checked. */
function renameEdits(services, entry, start) {
  const edits = new Map();
  const queue = [start];
  const seen = new Set();
  while (queue.length > 0) {
    const at = queue.pop();
    const key = `${at.file}:${at.pos}`;
    if (seen.has(key)) continue;
    seen.add(key);
    for (const s of services.filter((x) => x.files.has(at.file))) {
      const locations = s.ls.findRenameLocations(at.file, at.pos, false, false, { providePrefixAndSuffixTextForRename: true });
      if (!locations) stop(`${entry.name}: the language service cannot rename it (${rel(at.file)})`);
      for (const l of locations) {
        const file = path.resolve(l.fileName);
        const where = `${rel(file)}:${ts.getLineAndCharacterOfPosition(sourceFile(file), l.textSpan.start).line + 1}`;
        if (!file.startsWith(ROOT + path.sep) || file.includes(`${path.sep}node_modules${path.sep}`)) {
          stop(`${entry.name}: a location outside the project (${l.fileName})`);
        }
        if (isGenerated(file)) stop(`${entry.name}: used in generated code (${where}); it is a wire name`);
        const node = identifierAt(file, l.textSpan.start);
        if (!node || node.text !== entry.name) stop(`${entry.name}: ${where} is not the identifier (a string or a key?)`);
        const parent = node.parent;
        const alias = ts.isExportSpecifier(parent) || ts.isImportSpecifier(parent);
        if (alias && (l.prefixText || l.suffixText)) {
          // A re-export: rename through it, so that its importers follow.
          queue.push({ file, pos: l.textSpan.start });
        }
        const text = alias ? entry.to : `${l.prefixText ?? ''}${entry.to}${l.suffixText ?? ''}`;
        // A shorthand property renamed as a key (`to: old`) or as a value (`old: to`), for merging.
        const shorthand = alias ? undefined : l.suffixText ? { key: entry.to } : l.prefixText ? { value: entry.to } : undefined;
        const prior = edits.get(`${file}:${l.textSpan.start}`);
        if (prior && prior.text !== text) stop(`${entry.name}: two different edits at ${where}`);
        edits.set(`${file}:${l.textSpan.start}`, {
          file,
          start: l.textSpan.start,
          length: l.textSpan.length,
          text,
          where,
          shorthand,
        });
      }
    }
  }
  return [...edits.values()];
}

/**
 * Two entries may meet at one shorthand property: `{ adminToken }` when both the property and the
 * local variable are renamed. The key comes from the one, the value from the other.
 */
function merge(a, b) {
  if (a.text === b.text) return a;
  const key = a.shorthand?.key ?? b.shorthand?.key;
  const value = a.shorthand?.value ?? b.shorthand?.value;
  if (key === undefined || value === undefined) stop(`two different edits at ${a.where}: ${a.text} and ${b.text}`);
  return { ...a, text: key === value ? key : `${key}: ${value}`, shorthand: undefined };
}

function applyEdits(edits) {
  const byFile = new Map();
  for (const e of edits) {
    const list = byFile.get(e.file) ?? new Map();
    const prior = list.get(e.start);
    list.set(e.start, prior ? merge(prior, e) : e);
    byFile.set(e.file, list);
  }
  for (const [file, byStart] of byFile) {
    const list = [...byStart.values()].sort((a, b) => b.start - a.start);
    let text = read(file);
    let limit = Infinity;
    for (const e of list) {
      if (e.start + e.length > limit) stop(`overlapping edits in ${rel(file)} at ${e.where}`);
      text = text.slice(0, e.start) + e.text + text.slice(e.start + e.length);
      limit = e.start;
    }
    write(file, text);
  }
}

function renameIdentifiers() {
  const services = projects().map(service);
  const allFiles = [...new Set(services.flatMap((s) => [...s.files]))].filter(
    (f) => !f.includes('node_modules') && !isGenerated(f),
  );
  const edits = [];
  const changed = new Set();
  for (const listed of IDENTIFIER_RENAMES) {
    // The container may have been renamed by an earlier run of this list.
    const renamedContainer = IDENTIFIER_RENAMES.find((e) => e.name === listed.container && !e.member && !e.key)?.to;
    const later = renamedContainer ? { ...listed, container: renamedContainer } : listed;
    const entry = locate(listed, listed.name, allFiles) || !renamedContainer ? listed : later;
    const found = locate(entry, entry.name, allFiles);
    if (!found) {
      const done = locate(entry, entry.to, allFiles) ?? locate(later, entry.to, allFiles);
      if (done) {
        console.log(`skip  ${entry.name} → ${entry.to} (already applied in ${rel(done.file)})`);
        continue;
      }
      stop(`${entry.file}: no declaration of ${entry.name} (nor of ${entry.to}) anywhere`);
    }
    if (entry.key) {
      // A key the language service cannot tie to its type (an object handed to a generic such as
      // Object.freeze): renamed where it is written, a shorthand keeping its value.
      const keys = found.nodes.map((n) => ({
        file: found.file,
        start: n.getStart(),
        length: n.getWidth(),
        text: ts.isShorthandPropertyAssignment(n.parent) ? `${entry.to}: ${entry.name}` : entry.to,
        where: rel(found.file),
        shorthand: ts.isShorthandPropertyAssignment(n.parent) ? { key: entry.to } : undefined,
      }));
      console.log(`${DRY ? 'would ' : ''}rename key ${entry.name} → ${entry.to}: ${keys.length} sites in ${rel(found.file)}`);
      edits.push(...keys);
      keys.forEach((e) => changed.add(e.file));
      continue;
    }
    const list = renameEdits(services, entry, { file: found.file, pos: found.nodes[0].getStart() });
    const covered = new Set(list.map((e) => `${e.file}:${e.start}`));
    const apart = found.nodes.filter((n) => !covered.has(`${found.file}:${n.getStart()}`));
    if (apart.length > 0)
      stop(`${entry.file}: ${found.nodes.length} declarations of ${entry.name} that are not one symbol; add \`container\``);
    for (const file of new Set(list.map((e) => e.file))) {
      const clash = entry.member
        ? declarationsIn(file, entry.to, { member: true, container: entry.container }).length
        : declarationsIn(file, entry.to, { imports: true }).length;
      if (clash > 0 && !entry.allowExisting) stop(`${entry.name} → ${entry.to}: ${rel(file)} already declares ${entry.to}`);
    }
    console.log(
      `${DRY ? 'would ' : ''}rename ${entry.name} → ${entry.to}: ${list.length} sites in ${new Set(list.map((e) => e.file)).size} files`,
    );
    edits.push(...list);
    list.forEach((e) => changed.add(e.file));
  }
  for (const entry of IDENTIFIER_RENAMES.filter((e) => e.member)) warnUntied(allFiles, entry, edits);
  applyEdits(edits);
  if (!DRY) reportMentions(IDENTIFIER_RENAMES.map((e) => e.name).filter((n) => /[A-Z_]/.test(n.slice(1))));
  return changed;
}

/**
 * A member's rename reaches the object literals typed by its declaration, not one handed to a
 * generic (`Object.freeze({ ...config, adminToken })`), which still compiles. Keys of that name left
 * behind are listed: each is a wire name (leave it) or a miss (a `key` entry in the list).
 */
function warnUntied(allFiles, entry, edits) {
  const renamed = new Set(edits.map((e) => `${e.file}:${e.start}`));
  const left = [];
  for (const f of allFiles) {
    if (!read(f)?.includes(entry.name)) continue;
    for (const node of declarationsIn(f, entry.name, { key: true })) {
      if (!renamed.has(`${f}:${node.getStart()}`))
        left.push(`${rel(f)}:${sourceFile(f).getLineAndCharacterOfPosition(node.getStart()).line + 1}`);
    }
  }
  if (left.length > 0)
    console.log(`  keys named ${entry.name} left as they are (wire names, or add a key entry): ${left.join(', ')}`);
}

/** Moves a file (git mv) and rewrites every import of it, and its own imports. */
function renameFiles(changed) {
  const services = projects().map(service);
  for (const move of FILE_RENAMES) {
    let from = abs(move.file);
    if (read(from) === undefined) {
      const base = path.basename(from);
      const target = gitFiles('src', 'test', 'console', 'scripts').filter((f) => path.basename(f) === move.to);
      const source = gitFiles('src', 'test', 'console', 'scripts').filter((f) => path.basename(f) === base);
      if (source.length === 0 && target.length === 1) {
        console.log(`skip  ${move.file} → ${move.to} (already at ${target[0]})`);
        continue;
      }
      if (source.length !== 1) stop(`${move.file} moved, and ${source.length} files are called ${base}: ${source.join(', ')}`);
      from = abs(source[0]);
    }
    const to = path.join(path.dirname(from), move.to);
    if (read(to) !== undefined) stop(`${rel(to)} exists already`);
    const edits = new Map();
    for (const s of services.filter((x) => x.files.has(from))) {
      for (const change of s.ls.getEditsForFileRename(from, to, {}, {})) {
        const file = path.resolve(change.fileName);
        if (!file.startsWith(ROOT + path.sep) || file.includes('node_modules') || !/\.(ts|tsx|js|mjs)$/.test(file)) continue;
        for (const t of change.textChanges) {
          edits.set(`${file}:${t.span.start}`, {
            file,
            start: t.span.start,
            length: t.span.length,
            text: t.newText,
            where: rel(file),
          });
        }
      }
    }
    applyEdits([...edits.values()]);
    console.log(`${DRY ? 'would ' : ''}move ${rel(from)} → ${rel(to)}: ${edits.size} import paths`);
    if (!DRY) execFileSync('git', ['mv', from, to], { cwd: ROOT });
    texts.set(to, read(from));
    texts.delete(from);
    for (const s of services) {
      if (s.files.delete(from)) s.files.add(to);
    }
    for (const f of [...changed]) if (f === from) changed.delete(f);
    changed.add(to);
    [...edits.values()].forEach((e) => changed.add(e.file === from ? to : e.file));
    if (DRY) continue;
    const mentions = gitGrep(path.basename(from).replace(/\.(ts|tsx)$/, ''));
    if (mentions.length > 0)
      console.log(`  still named in text (comments, docs, strings; fix by hand):\n    ${mentions.join('\n    ')}`);
  }
}

/** Old compound names still written in comments, docs or strings: a person rewrites those sentences. */
function reportMentions(names) {
  for (const name of new Set(names)) {
    const hits = gitGrep(name, ['-w']);
    if (hits.length === 0) continue;
    const more = hits.length > 5 ? ` (and ${hits.length - 5} more)` : '';
    console.log(`  ${name} still written in text${more}:\n    ${hits.slice(0, 5).join('\n    ')}`);
  }
}

function gitGrep(word, flags = []) {
  try {
    return execFileSync('git', ['grep', '-n', '-F', ...flags, word, '--', '.', ':!scripts/identifier-renames.mjs'], {
      cwd: ROOT,
      encoding: 'utf8',
    })
      .split('\n')
      .filter(Boolean);
  } catch {
    return [];
  }
}

/** Identifiers (not strings, not comments) that use each glossary word, outside generated code. */
function count() {
  const words = (id) =>
    id
      .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
      .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
      .replace(/[_$#]/g, ' ')
      .toLowerCase()
      .split(/\s+/)
      .filter(Boolean);
  const seen = new Map();
  for (const f of gitFiles('src', 'test', 'console', 'scripts').filter((x) => /\.(ts|tsx|js|mjs)$/.test(x))) {
    if (isGenerated(abs(f)) || f.endsWith('identifier-renames.mjs')) continue;
    const visit = (node) => {
      if (ts.isIdentifier(node) || ts.isPrivateIdentifier(node)) seen.set(node.text, (seen.get(node.text) ?? 0) + 1);
      ts.forEachChild(node, visit);
    };
    visit(sourceFile(abs(f)));
  }
  for (const phrase of GLOSSARY_WORDS) {
    const want = phrase.split(' ');
    const hits = [...seen.keys()].filter((id) => {
      const w = words(id);
      return w.some((_, i) => want.every((x, j) => w[i + j] === x || w[i + j] === `${x}s`));
    });
    const uses = hits.reduce((n, id) => n + seen.get(id), 0);
    console.log(`${phrase.padEnd(14)} ${String(hits.length).padStart(4)} identifiers ${String(uses).padStart(6)} uses`);
    if (args.has('--list'))
      console.log(
        hits
          .sort()
          .map((h) => `    ${h} ${seen.get(h)}`)
          .join('\n'),
      );
  }
}

try {
  if (args.has('--count')) {
    count();
  } else {
    const changed = renameIdentifiers();
    renameFiles(changed);
    const list = [...changed]
      .filter((f) => read(f) !== undefined)
      .map(rel)
      .sort();
    console.log(`\n${DRY ? 'would change' : 'changed'} ${list.length} files; next: npm run typecheck, then`);
    console.log(`npx prettier --write ${list.join(' ')}`);
  }
} catch (error) {
  if (!(error instanceof Stop)) throw error;
  // Identifier renames are written only once every entry resolved; file moves are made one by one.
  console.error(`rename-identifiers: ${error.message}`);
  process.exit(1);
}
