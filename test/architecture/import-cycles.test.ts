import { describe, expect, it } from 'vitest';
import { cycles, importGraph } from './import-graph.js';

describe('the modules of src/', () => {
  it('when their imports are followed, then no module reaches itself again (no import cycle, type-only ones included)', () => {
    const graph = importGraph();
    expect(graph.size).toBeGreaterThan(100);
    expect(cycles(graph)).toEqual([]);
  });
});
