import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module of the repository's scripts, without types
import { importGraph } from '../scripts/import-graph.mjs';

/*
 * The house drawn from the imports (scripts/import-graph.mjs, docs/architecture.md "The imports"): among the
 * runtime imports of apps/ and libs/, no circle, and no import into another package's files past its index (or
 * the entry points it offers its worker threads).
 */
describe('the imports of apps/ and libs/', () => {
  const graph = importGraph() as { files: string[]; circles: string[][]; reaching: string[] };

  it('reads the source files', () => {
    expect(graph.files.length).toBeGreaterThan(300);
  });

  it('hold no circle', () => {
    expect(graph.circles).toEqual([]);
  });

  it("reach no other package's private files", () => {
    expect(graph.reaching).toEqual([]);
  });
});
