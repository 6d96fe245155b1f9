import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The delivery engine (src/delivery/) and endpoint management (src/webhooks/) are two rooms with a
 * door that opens one way (issue 28, item 3). Management calls the engine: registration, the test
 * call, recovery and the operator's tools use its repositories, its signing and its sender. The
 * engine imports nothing of management: what both need sits at the engine's bottom (the tables' row
 * types, the limits a partner may set and how a stored signing secret is opened), so the folder
 * graph has one edge between the two rooms, webhooks → delivery.
 *
 * Inside the engine, imports go one way too, down these layers (a module imports only from layers
 * below its own), so that following a look at the queue never walks back up: the worker schedules,
 * the lanes decide what starts, `exchange` is the one transaction, the repositories write. Its
 * shared types live in types.ts, at the bottom, so that no module imports types from a service.
 * A new module of src/delivery/ must be placed in a layer here.
 */

const SRC = path.resolve(import.meta.dirname, '../../src');
const DELIVERY = path.join(SRC, 'delivery');

/** The engine's layers, bottom first. */
const LAYERS: readonly (readonly string[])[] = [
  ['webhook.tables.ts', 'endpoint-limits.ts'],
  ['types.ts', 'endpoint-secret.ts'],
  ['retry-schedule.ts', 'signature.ts', 'throttle.ts', 'look-timers.ts', 'url-safety.ts'],
  [
    'queue.repository.ts',
    'delivery.repository.ts',
    'backlog.repository.ts',
    'endpoints.repository.ts',
    'http-sender.ts',
    'attempt-log.ts',
  ],
  ['delivery.service.ts', 'dispatcher.ts', 'reschedule.service.ts'],
  ['delivery-queue.service.ts'],
  ['endpoint-lane.ts'],
  ['lane-pool.ts'],
  ['worker-settings.ts'],
  ['delivery-worker.ts'],
];

/** The src/ modules a module imports (type-only imports and re-exports included), relative to src/. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s+'(\.{1,2}\/[^']+)'/gms)].map((m) =>
    path.relative(SRC, path.resolve(path.dirname(file), m[1]!)).replace(/\.js$/, '.ts'),
  );
}

const engine = readdirSync(DELIVERY).filter((f) => f.endsWith('.ts'));
const layerOf = new Map<string, number>(LAYERS.flatMap((layer, i) => layer.map((file) => [`delivery/${file}`, i] as const)));

describe('the delivery engine, src/delivery/', () => {
  it('when its modules are listed, then each has its place in a layer, and every layer names modules that exist', () => {
    expect(engine.filter((f) => !layerOf.has(`delivery/${f}`))).toEqual([]);
    expect([...layerOf.keys()].filter((f) => !engine.includes(path.basename(f)))).toEqual([]);
  });

  it('when its imports are followed, then each goes to a lower layer: no module imports one beside or above it', () => {
    const upward = engine.flatMap((file) => {
      const own = layerOf.get(`delivery/${file}`) ?? -1;
      return importsOf(path.join(DELIVERY, file))
        .filter((target) => target.startsWith('delivery/') && (layerOf.get(target) ?? Infinity) >= own)
        .map((target) => `delivery/${file} → ${target}`);
    });
    expect(upward).toEqual([]);
  });

  it('when a module needs a type another module shares, then it takes it from types.ts, never from a service', () => {
    const fromServices = engine.flatMap((file) => {
      const text = readFileSync(path.join(DELIVERY, file), 'utf8');
      return [...text.matchAll(/^import\b([^;]*?)\bfrom\s+'\.\/([^']+\.service)\.js'/gms)]
        .filter((m) => /^\s*type\b|[{,]\s*type\s/.test(m[1]!))
        .map((m) => `delivery/${file} → ${m[2]!}`);
    });
    expect(fromServices).toEqual([]);
  });

  it('when its imports are followed, then none reaches src/webhooks/', () => {
    const outside = engine.flatMap((file) =>
      importsOf(path.join(DELIVERY, file))
        .filter((target) => target.startsWith('webhooks/'))
        .map((target) => `delivery/${file} → ${target}`),
    );
    expect(outside).toEqual([]);
  });
});
