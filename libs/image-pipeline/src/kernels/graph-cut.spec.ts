import { describe, expect, it } from 'vitest';
import { random } from '../../../../test/fixtures/seeded-random.mjs';
import type { RawPixels } from '../workers/raw-pixels';
import { cutGrid, type GridCutInput } from './graph-cut';

/** The energy of `labels` as cutGrid defines it, computed directly (8-connected pairs once each). */
function energy(input: GridCutInput, labels: Uint8Array): number {
  const { width, height, image, fgCost, bgCost, fixed, smoothness } = input;
  let pairs = 0;
  let sum = 0;
  let count = 0;
  const d2 = (a: number, b: number) => {
    let s = 0;
    for (let c = 0; c < 3; c++) s += (image.data[a * 3 + c] - image.data[b * 3 + c]) ** 2;
    return s;
  };
  const forward = [
    [1, 0],
    [-1, 1],
    [0, 1],
    [1, 1],
  ];
  // beta over the free pixels' right and lower neighbours, as cutGrid
  for (let a = 0; a < width * height; a++) {
    if (fixed[a] !== 0) continue;
    const x = a % width;
    for (const b of [x + 1 < width ? a + 1 : -1, a + width < width * height ? a + width : -1]) {
      if (b < 0) continue;
      sum += d2(a, b);
      count++;
    }
  }
  const beta = sum === 0 ? 0 : 1 / (2 * (sum / count));
  let total = 0;
  for (let a = 0; a < width * height; a++) {
    if (fixed[a] === 0) total += labels[a] ? fgCost[a] : bgCost[a];
    const x = a % width;
    const y = (a - x) / width;
    for (const [dx, dy] of forward) {
      const nx = x + dx;
      const ny = y + dy;
      if (nx < 0 || ny < 0 || nx >= width || ny >= height) continue;
      const b = ny * width + nx;
      if (fixed[a] !== 0 && fixed[b] !== 0) continue;
      if (labels[a] === labels[b]) continue;
      pairs += (smoothness * Math.exp(-beta * d2(a, b))) / (dx !== 0 && dy !== 0 ? Math.SQRT2 : 1);
    }
  }
  return total + pairs;
}

function randomInput(seed: number, width: number, height: number, fixedShare: number): GridCutInput {
  const next = random(seed);
  const n = width * height;
  const data = new Uint8Array(n * 3);
  for (let i = 0; i < data.length; i++) data[i] = Math.floor(next() * 256);
  const image: RawPixels = { data, width, height, channels: 3 };
  const fgCost = Float32Array.from({ length: n }, () => next() * 4);
  const bgCost = Float32Array.from({ length: n }, () => next() * 4);
  const fixed = Uint8Array.from({ length: n }, () => (next() < fixedShare ? (next() < 0.5 ? 1 : 2) : 0));
  return { width, height, image, fgCost, bgCost, fixed, smoothness: 1 + next() * 3 };
}

describe('cutGrid', () => {
  it('finds the labelling of least energy (checked against every labelling of small grids)', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const input = randomInput(seed, 4, 4, 0.25);
      const free = [...input.fixed.keys()].filter((i) => input.fixed[i] === 0);
      let best = Infinity;
      for (let mask = 0; mask < 1 << free.length; mask++) {
        const labels = Uint8Array.from(input.fixed, (f) => (f === 1 ? 1 : 0));
        free.forEach((pixel, bit) => (labels[pixel] = (mask >> bit) & 1));
        best = Math.min(best, energy(input, labels));
      }
      const answer = cutGrid(input);
      // costs are cut in 1/64ths: the answer's energy is within that rounding of the least
      expect(energy(input, answer), `seed ${seed}`).toBeLessThanOrEqual(best + 0.05 * (free.length + 1));
      input.fixed.forEach(
        (f, i) => f !== 0 && expect(answer[i], `seed ${seed}: fixed pixel ${i}`).toBe(f === 1 ? 1 : 0),
      );
    }
  });

  it('puts the boundary of a noisy two-region image on its edge', () => {
    const width = 80;
    const height = 40;
    const next = random(7);
    const data = new Uint8Array(width * height * 3);
    const fgCost = new Float32Array(width * height);
    const bgCost = new Float32Array(width * height);
    const fixed = new Uint8Array(width * height);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const i = y * width + x;
        const left = x < 45;
        data.fill(left ? 60 : 190, i * 3, i * 3 + 3);
        // unary terms that prefer the right answer only weakly, and wrongly in a third of the pixels
        const wrong = next() < 0.33;
        fgCost[i] = (left !== wrong ? 0 : 1) * 0.8;
        bgCost[i] = (left !== wrong ? 1 : 0) * 0.8;
        if (x < 5) fixed[i] = 1;
        if (x >= width - 5) fixed[i] = 2;
      }
    }
    const labels = cutGrid({
      width,
      height,
      image: { data, width, height, channels: 3 },
      fgCost,
      bgCost,
      fixed,
      smoothness: 10,
    });
    let wrong = 0;
    for (let i = 0; i < labels.length; i++) if (labels[i] !== (i % width < 45 ? 1 : 0)) wrong++;
    expect(wrong).toBe(0);
  });

  it('labels free pixels with no cost and no fixed neighbour without failing', () => {
    const width = 30;
    const height = 20;
    const zero = new Float32Array(width * height);
    const data = new Uint8Array(width * height * 3).fill(128);
    const labels = cutGrid({
      width,
      height,
      image: { data, width, height, channels: 3 },
      fgCost: zero,
      bgCost: zero,
      fixed: new Uint8Array(width * height),
      smoothness: 50,
    });
    expect(labels.length).toBe(width * height);
  });
});
