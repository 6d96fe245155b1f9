import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { importGraph, SRC } from './import-graph.js';

/**
 * The pharmacy's work in rooms of its own (issue 38, item 1), and the one direction of their imports.
 *
 * The decision: a layer above the rooms, with the order's core below them, and the few places where
 * the core must let a room act declared by the core as small typed extension points.
 *
 *   fulfillment/   the use cases that cross rooms and the order as partners read it, assembled once:
 *                  intake (the core's checks, the destination check, the intake hold, storing), the
 *                  moves by status (the sign-off gate, the fill check, the first shipment), the reads
 *                  (the partner's, the pharmacy's), and the routes that answer with them
 *       ↓
 *   holds/  compounding/  shipments/   the rooms: each its tables, rules, use cases, routes
 *       ↓      (shipments → holds: an exception puts a shipped order on a delivery_exception hold)
 *   orders/        the order's core: creation (its rows and events), moves (its row, history, event),
 *                  status, the order's rules (the destination check) and its core read
 *
 * The core declares what a room contributes without naming one (orders/new-order.ts HeldAtCreation:
 * the hold a new order takes; orders/order-transition.ts MoveSteps: what a move does besides moving
 * the row; orders/order-answer.ts OrderAnswer: the order as partners read it, which a room's routes
 * answer with); fulfillment/ supplies them, and routes.ts hands ORDER_ANSWER to the rooms' routes.
 *
 * Why this way rather than extension points registered at start (option a): every room's part is an
 * import one can follow, with no registry to fill in the right order; the one read and its schema are
 * one module each, so a room's answer always has every room's part. The next rooms fit the same
 * story: a prescription of record is created at intake (fulfillment/order-intake.service.ts) and
 * shown in the read (fulfillment/order-view.ts), and refills, above fulfillment, consume it;
 * controlled-substance checks and pricing at intake are intake's steps, in fulfillment/.
 */

/** The rooms, and the rooms each may import (besides the core below them). */
const ROOMS: Readonly<Record<string, readonly string[]>> = {
  holds: [],
  compounding: [],
  // An exception or a return to sender puts a shipped order on hold (delivery_exception), and the
  // last delivery resumes it: the journey uses the holds' own steps.
  shipments: ['holds'],
};
const CORE = 'orders';
const ABOVE = 'fulfillment';

const folderOf = (file: string): string => file.split('/')[0] ?? '';

/** `from → to` for each import of a module of `folder` into one of `targets`. */
function importsInto(folder: string, targets: readonly string[]): string[] {
  return [...importGraph()].flatMap(([file, imports]) =>
    folderOf(file) !== folder
      ? []
      : imports.filter((target) => targets.includes(folderOf(target))).map((target) => `${file} → ${target}`),
  );
}

/** Where in src/ `pattern` occurs, as `file`. */
function filesMatching(pattern: RegExp): string[] {
  return [...importGraph().keys()].filter((file) => pattern.test(readFileSync(path.join(SRC, file), 'utf8'))).sort();
}

describe('the pharmacy rooms and the order core', () => {
  it('when the core is read, then it imports no room and nothing of the layer above', () => {
    expect(importsInto(CORE, [...Object.keys(ROOMS), ABOVE])).toEqual([]);
  });

  it('when each room is read, then it imports only the rooms it may, and nothing of the layer above', () => {
    for (const [room, allowed] of Object.entries(ROOMS)) {
      const others = Object.keys(ROOMS).filter((other) => other !== room && !allowed.includes(other));
      expect(importsInto(room, [...others, ABOVE]), room).toEqual([]);
    }
  });

  it('when the rooms are listed, then each exists and builds on the core', () => {
    for (const room of Object.keys(ROOMS)) expect(importsInto(room, [CORE]).length, room).toBeGreaterThan(0);
    expect(importsInto(ABOVE, Object.keys(ROOMS)).length).toBeGreaterThan(0);
  });

  it('when the order as partners read it is looked for, then it is assembled in one module, its schema in one', () => {
    // The core's read and each room's part of it are put together in fulfillment/order-view.ts only.
    for (const part of ['readOrderCores', 'holdFields', 'itemFillView', 'shipmentViews']) {
      // A call, not the definition (`function name(`; an arrow function is `name = (`).
      expect(filesMatching(new RegExp(`(?<!function )\\b${part}\\(`)), part).toEqual(['fulfillment/order-view.ts']);
    }
    expect(filesMatching(/\$id: 'MedicationOrder'/)).toEqual(['fulfillment/order-view.schemas.ts']);
  });
});
