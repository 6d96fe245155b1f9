import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cycles, importGraph, SRC } from './import-graph.js';

/**
 * A feature folder of src/ is one that owns tables, services or routes (`*.tables.ts`,
 * `*.service.ts`, `*.routes.ts`): orders, refills, shipping... Features build on one another in one
 * direction (refills on orders, never orders on refills: issue 28), so that one can be read, changed
 * or moved without the other. Layers that every feature uses (db, http, shared...) are held by their
 * own rules.
 */
function featureFolders(): Set<string> {
  const folders = readdirSync(SRC, { withFileTypes: true }).filter((entry) => entry.isDirectory());
  return new Set(
    folders
      .filter((folder) =>
        readdirSync(`${SRC}/${folder.name}`).some((file) => /\.(tables|service|routes|operator-routes)\.ts$/.test(file)),
      )
      .map((folder) => folder.name),
  );
}

/** Folder → the feature folders its modules import (type-only imports included). */
function folderGraph(features: Set<string>): Map<string, string[]> {
  const edges = new Map<string, Set<string>>([...features].map((folder) => [folder, new Set<string>()]));
  for (const [file, targets] of importGraph()) {
    const from = file.split('/')[0] ?? '';
    for (const target of targets) {
      const to = target.split('/')[0] ?? '';
      if (from !== to && features.has(from) && features.has(to)) edges.get(from)?.add(to);
    }
  }
  return new Map([...edges].map(([folder, targets]) => [folder, [...targets]]));
}

/**
 * Cycles allowed, each to be broken by its own change: none now (issue 39 moved the formulary's
 * operator routes from clinics/ to medications/, which broke the last one, clinics ↔ medications). A
 * cycle not listed here fails the test; one listed here that is gone fails it too, so that the list
 * only shrinks.
 */
const KNOWN_CYCLES: string[][] = [];

describe('the feature folders of src/', () => {
  it('when their imports are followed folder by folder, then no feature reaches itself again', () => {
    const features = featureFolders();
    expect(features).toContain('orders');
    expect(features).toContain('refills');
    expect(cycles(folderGraph(features))).toEqual(KNOWN_CYCLES);
  });

  it('when orders and refills are read, then refills build on orders and orders import nothing of refills', () => {
    const graph = folderGraph(featureFolders());
    expect(graph.get('refills')).toContain('orders');
    expect(graph.get('orders')).not.toContain('refills');
  });
});
