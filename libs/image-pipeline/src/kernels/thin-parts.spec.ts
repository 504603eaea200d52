import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Plane } from './guided-filter';
import { maxFilter, recoverThinParts } from './thin-parts';

function bruteMax(plane: Plane, radius: number): Float32Array {
  const { width, height, data } = plane;
  const out = new Float32Array(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let best = 0;
      for (let dy = -radius; dy <= radius; dy++) {
        for (let dx = -radius; dx <= radius; dx++) {
          const nx = x + dx;
          const ny = y + dy;
          if (nx >= 0 && ny >= 0 && nx < width && ny < height) best = Math.max(best, data[ny * width + nx]);
        }
      }
      out[y * width + x] = best;
    }
  }
  return out;
}

describe('maxFilter', () => {
  it('equals the brute-force maximum over the square window, at any size and radius', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 17 }),
        fc.integer({ min: 1, max: 13 }),
        fc.integer({ min: 0, max: 6 }),
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        (width, height, radius, seed) => {
          let state = seed || 1;
          const data = Float32Array.from({ length: width * height }, () => {
            state = (state * 48271) % 2147483647;
            return state / 2147483647;
          });
          const plane = { data, width, height };
          expect(Array.from(maxFilter(plane, radius).data)).toEqual(Array.from(bruteMax(plane, radius)));
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('recoverThinParts', () => {
  // a solid body (rows 0-9) with a faint leg (0.3, columns 20-21) hanging from it, and a faint speck far away
  const width = 60;
  const height = 60;
  const data = new Float32Array(width * height);
  for (let y = 0; y < 10; y++) for (let x = 5; x < 40; x++) data[y * width + x] = 1;
  for (let y = 10; y < 50; y++) for (const x of [20, 21]) data[y * width + x] = 0.3;
  for (let y = 40; y < 44; y++) for (let x = 50; x < 54; x++) data[y * width + x] = 0.3;
  const out = recoverThinParts({ data, width, height }, 2).data;

  it('raises a faint part attached to the body to full strength, and leaves its surroundings at 0', () => {
    expect(out[30 * width + 20]).toBeCloseTo(1);
    expect(out[30 * width + 21]).toBeCloseTo(1);
    expect(out[30 * width + 24]).toBe(0);
  });

  it('leaves faint haze that touches nothing solid as it was, and the body unchanged', () => {
    expect(out[41 * width + 51]).toBeCloseTo(0.3);
    expect(out[5 * width + 10]).toBe(1);
  });
});
