import { describe, expect, it } from 'vitest';
import { fitColourModel } from './colour-model';
import { unmixStrands } from './strand-unmix';

const W = 200;
const H = 80;
const TEAL = [30, 120, 130];
const BROWN = [70, 40, 20];

// a brown head at the left, a strand of hair from it to the right edge (two rows, 70% cover): the search for
// strands (cutout-refine.ts) reaches only 20 px past the head
const head = (x: number, y: number) => Math.hypot(x - 20, y - 40) <= 18;
const strand = (x: number, y: number) => x > 38 && (y === 40 || y === 41);
const searched = (x: number) => x <= 58;

function scene() {
  const data = new Uint8Array(W * H * 3);
  const fg = new Uint8Array(W * H);
  const where = new Uint8Array(W * H);
  const bgSure = new Uint8Array(W * H);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const i = y * W + x;
      const cover = head(x, y) ? 1 : strand(x, y) ? 0.7 : 0;
      for (let c = 0; c < 3; c++) data[i * 3 + c] = Math.round(cover * BROWN[c] + (1 - cover) * TEAL[c]);
      fg[i] = head(x, y) ? 1 : 0;
      where[i] = strand(x, y) && searched(x) ? 1 : 0;
      bgSure[i] = head(x, y) || where[i] ? 0 : 1;
    }
  }
  const image = { data, width: W, height: H, channels: 3 };
  const alpha = new Uint8Array(W * H);
  for (let i = 0; i < alpha.length; i++) alpha[i] = fg[i] ? 255 : 0;
  return { image, alpha, where, bgSure, foreground: fitColourModel(image, fg, 3)! };
}

const strandAlpha = (alpha: Uint8Array, from: number, to: number) => {
  const values: number[] = [];
  for (let x = from; x < to; x++) values.push(alpha[40 * W + x], alpha[41 * W + x]);
  return values;
};

describe('unmixStrands', () => {
  it("gives the strands it was told of their partial alpha, and follows them past the search's reach on a plain backdrop", () => {
    const { image, alpha, where, bgSure, foreground } = scene();
    unmixStrands(image, alpha, { where, bgSure, follow: true }, foreground, 1);
    for (const a of strandAlpha(alpha, 42, 196)) expect(Math.abs(a - 0.7 * 255)).toBeLessThan(20);
    // the wall above and below stays clear
    for (let x = 0; x < W; x++) expect(alpha[20 * W + x] + alpha[60 * W + x]).toBe(0);
  });

  it('stops at the reach where it is not to follow (a busy backdrop)', () => {
    const { image, alpha, where, bgSure, foreground } = scene();
    unmixStrands(image, alpha, { where, bgSure, follow: false }, foreground, 1);
    for (const a of strandAlpha(alpha, 42, 58)) expect(Math.abs(a - 0.7 * 255)).toBeLessThan(20);
    for (const a of strandAlpha(alpha, 60, 196)) expect(a).toBe(0);
  });
});
