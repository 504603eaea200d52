import { describe, expect, it } from 'vitest';
import { seededRandom } from '../seeded-random';
import { CHANNELS, RADIUS, sourceCentres, targetCentres, touchingKnown, type CompletionLevel } from './patch-match';

/** A level with known and excluded pixels scattered at random (blobs of a few pixels), clipped patches at the edges. */
function scattered(width: number, height: number, seed: number): CompletionLevel {
  const random = seededRandom(seed);
  const known = new Uint8Array(width * height).fill(1);
  const excluded = new Uint8Array(width * height);
  for (let i = 0; i < (width * height) / 40; i++) {
    const x = Math.floor(random() * width);
    const y = Math.floor(random() * height);
    const side = 1 + Math.floor(random() * 4);
    const flags = random() < 0.7 ? known : excluded;
    for (let v = y; v < Math.min(height, y + side); v++)
      for (let u = x; u < Math.min(width, x + side); u++) flags[v * width + u] = flags === known ? 0 : 1;
  }
  return { width, height, data: new Float32Array(width * height * CHANNELS), known, excluded };
}

/** The pixels of the patch centred at (x, y), clipped to the canvas, counted one by one. */
function countIn(level: CompletionLevel, x: number, y: number, flag: (p: number) => boolean): number {
  let count = 0;
  for (let v = Math.max(0, y - RADIUS); v <= Math.min(level.height - 1, y + RADIUS); v++)
    for (let u = Math.max(0, x - RADIUS); u <= Math.min(level.width - 1, x + RADIUS); u++)
      if (flag(v * level.width + u)) count++;
  return count;
}

describe('patch centres of a completion level', () => {
  for (const [width, height, seed] of [
    [61, 47, 1],
    [9, 30, 2],
    [5, 5, 3],
  ] as const) {
    it(`match a pixel-by-pixel count of every patch (${width}x${height})`, () => {
      const level = scattered(width, height, seed);
      const { known, excluded } = level;
      const sources: number[] = [];
      const targets: number[] = [];
      for (let y = 0; y < height; y++) {
        for (let x = 0; x < width; x++) {
          const p = y * width + x;
          const inside = x >= RADIUS && y >= RADIUS && x < width - RADIUS && y < height - RADIUS;
          if (inside && countIn(level, x, y, (q) => known[q] === 0 || excluded[q] === 1) === 0) sources.push(p);
          if (countIn(level, x, y, (q) => known[q] === 0) > 0) targets.push(p);
        }
      }
      const touching = targets.flatMap((p, t) =>
        countIn(level, p % width, Math.floor(p / width), (q) => known[q] === 1) > 0 ? [t] : [],
      );

      const { valid, count } = sourceCentres(level);
      expect(count).toBe(sources.length);
      expect([...valid.keys()].filter((p) => valid[p] === 1)).toEqual(sources);
      const found = targetCentres(level);
      expect([...found.targets]).toEqual(targets);
      expect([...touchingKnown(found.targets, found.knownIn)]).toEqual(touching);
      // the scatter leaves some of each, so that the comparison is not of empty lists
      expect(Math.min(sources.length, targets.length, touching.length)).toBeGreaterThan(width > 5 ? 0 : -1);
    });
  }
});
