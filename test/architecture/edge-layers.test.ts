import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '../../src');

/**
 * The two layers of HTTP (issue 28, item 3): `src/contracts/` at the bottom, what a request and an
 * answer are (shared schemas, validation, the error envelope, field aliases, the rate-limit window),
 * imported by every feature; `src/http/` at the top, the edge (guards, hooks, TLS, request ids, rate
 * limiting, client addresses, the front ends), which imports features and which no feature's
 * service imports. Services are handed what the edge knows (an address, a clinic) by their routes.
 */

/**
 * Modules outside src/http/ that may import it, besides routes (`*.routes.ts`, `*.operator-routes.ts`):
 * the wiring of the server, which assembles the edge around the features.
 */
const WIRING = new Map([
  ['app.ts', 'builds the application: the edge hooks around the routes'],
  ['routes.ts', 'mounts every feature routes'],
  ['main.ts', 'starts the server'],
  ['bootstrap.ts', 'opens the runtime: the rate-limit store (memory or Redis) and the log serializers'],
  ['context.ts', 'the type of that runtime, which holds the rate-limit store'],
  ['openapi.ts', 'the document of the edge: its areas, guards, idempotency and version headers'],
]);

/** What src/contracts/ may import besides itself: what every module may (shared helpers, the error type). */
const BELOW_CONTRACTS = [/^shared\//, /^errors\.ts$/];

/** Every module of src/ (relative to it) and the src/ modules it imports, type-only imports included. */
function importsOfSrc(): Map<string, string[]> {
  const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(path.join(SRC, file), 'utf8');
    const targets = [...text.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s+'(\.{1,2}\/[^']+)'/gms)].map((m) =>
      path.relative(SRC, path.resolve(path.dirname(path.join(SRC, file)), m[1]!)).replace(/\.js$/, '.ts'),
    );
    graph.set(
      file.split(path.sep).join('/'),
      targets.map((target) => target.split(path.sep).join('/')),
    );
  }
  return graph;
}

const isRoutes = (file: string) => /\.(routes|operator-routes)\.ts$/.test(file);

describe('the edge and the contracts', () => {
  const graph = importsOfSrc();

  it('when src/ is read, then only routes and the wiring import the edge (src/http/): no service, repository or contract does', () => {
    const offenders: string[] = [];
    for (const [file, targets] of graph) {
      if (file.startsWith('http/') || isRoutes(file) || WIRING.has(file)) continue;
      for (const target of targets) if (target.startsWith('http/')) offenders.push(`${file} → ${target}`);
    }
    expect(offenders).toEqual([]);
    for (const file of WIRING.keys()) expect(existsSync(path.join(SRC, file)), file).toBe(true);
  });

  it('when src/contracts/ is read, then it imports neither the edge nor any feature: only itself, src/shared/ and errors.ts', () => {
    const offenders: string[] = [];
    for (const [file, targets] of graph) {
      if (!file.startsWith('contracts/')) continue;
      for (const target of targets) {
        if (target.startsWith('contracts/') || BELOW_CONTRACTS.some((allowed) => allowed.test(target))) continue;
        offenders.push(`${file} → ${target}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it('when features describe their requests, then they do it with the contracts (the rules above are not empty)', () => {
    const schemaModules = [...graph].filter(
      ([file, targets]) => file.endsWith('.schemas.ts') && targets.includes('contracts/schemas.ts'),
    );
    expect(schemaModules.length).toBeGreaterThanOrEqual(20);
    expect([...graph.keys()].filter((file) => file.startsWith('contracts/')).length).toBeGreaterThanOrEqual(5);
  });
});
