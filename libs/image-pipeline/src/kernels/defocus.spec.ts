import { describe, expect, it } from 'vitest';
import type { RawPixels } from '../workers/raw-pixels';
import { dropDefocused } from './defocus';
import { boxMean, type Plane } from './guided-filter';

const W = 200;
const H = 160;

/** A plane of `value(x, y)` blurred by three box passes of `radius` (about a Gaussian of that sigma). */
function drawn(value: (x: number, y: number) => number, rx: number, ry = rx): Float32Array {
  let plane: Plane = { data: new Float32Array(W * H), width: W, height: H };
  for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) plane.data[y * W + x] = value(x, y);
  for (let pass = 0; pass < 3; pass++) {
    if (rx > 0) plane = blurRows(plane, rx);
    if (ry > 0) plane = transpose(blurRows(transpose(plane), ry));
  }
  return plane.data;
}

/** Each row blurred by a box of `radius` (boxMean over a one-row-high strip is a row blur). */
function blurRows(plane: Plane, radius: number): Plane {
  const out = new Float32Array(plane.data.length);
  for (let y = 0; y < plane.height; y++) {
    const row = { data: plane.data.slice(y * plane.width, (y + 1) * plane.width), width: plane.width, height: 1 };
    out.set(boxMean(row, radius).data, y * plane.width);
  }
  return { data: out, width: plane.width, height: plane.height };
}

function transpose(plane: Plane): Plane {
  const out = new Float32Array(plane.data.length);
  for (let y = 0; y < plane.height; y++)
    for (let x = 0; x < plane.width; x++) out[x * plane.height + y] = plane.data[y * plane.width + x];
  return { data: out, width: plane.height, height: plane.width };
}

/** An RGB image: `colour` where `cover` (0..1) is 1, over `under` (a colour per pixel). */
function picture(under: (i: number) => number[], cover: Float32Array, colour: number[]): RawPixels {
  const data = new Uint8Array(W * H * 3);
  for (let i = 0; i < W * H; i++) {
    const u = under(i);
    for (let c = 0; c < 3; c++) data[i * 3 + c] = Math.round(cover[i] * colour[c] + (1 - cover[i]) * u[c]);
  }
  return { data, width: W, height: H, channels: 3 };
}

const count = (mask: Uint8Array, where: (x: number, y: number) => boolean, test: (v: number) => boolean) => {
  let n = 0;
  for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) if (where(x, y) && test(mask[y * W + x])) n++;
  return n;
};

// a disc in focus at (130, 80), and a plant-like blob behind it at (70, 80), blurred as a scene out of focus
const disc = (x: number, y: number) => Math.hypot(x - 130, y - 80) <= 30;
const blob = (x: number, y: number) => Math.hypot((x - 70) / 45, (y - 80) / 35) <= 1;
const wall = [230, 205, 190];

describe('dropDefocused', () => {
  it('drops the out-of-focus part of the backdrop the network marked with the object, and keeps the object', () => {
    const scene = drawn((x, y) => (blob(x, y) ? 1 : 0), 6);
    const image = picture(
      (i) => [wall[0] - 140 * scene[i], wall[1] - 60 * scene[i], wall[2] - 130 * scene[i]],
      drawn((x, y) => (disc(x, y) ? 1 : 0), 0),
      [200, 40, 30],
    );
    // the network marked both, as one
    const prior = new Uint8Array(W * H);
    for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) prior[y * W + x] = disc(x, y) || blob(x, y) ? 255 : 0;
    const removed = dropDefocused(image, prior, 2);
    expect(removed).toBeGreaterThan(0);
    // the blob away from the disc is gone, the disc is whole
    expect(
      count(
        prior,
        (x, y) => blob(x, y) && Math.hypot(x - 130, y - 80) > 40,
        (v) => v > 0,
      ),
    ).toBe(0);
    expect(count(prior, disc, (v) => v !== 255)).toBe(0);
  });

  it('keeps an object blurred by motion alone on a plain wall (no part of it is in focus all round)', () => {
    // smeared sideways: its left and right edges as soft as the scene above, its top and bottom sharp
    const ball = drawn((x, y) => (Math.hypot(x - 100, y - 80) <= 40 ? 1 : 0), 8, 0);
    const image = picture(() => wall, ball, [240, 150, 20]);
    const prior = Uint8Array.from(ball, (v) => (v > 0.05 ? 255 : 0));
    const before = Uint8Array.from(prior);
    expect(dropDefocused(image, prior, 2)).toBe(0);
    expect(prior).toEqual(before);
  });

  it('leaves an object in focus on a plain wall as it is', () => {
    const image = picture(
      () => wall,
      drawn((x, y) => (disc(x, y) ? 1 : 0), 0),
      [30, 90, 200],
    );
    const prior = new Uint8Array(W * H);
    // the network's mark a little wider than the disc
    for (let y = 0; y < H; y++)
      for (let x = 0; x < W; x++) prior[y * W + x] = Math.hypot(x - 130, y - 80) <= 34 ? 255 : 0;
    expect(dropDefocused(image, prior, 2)).toBe(0);
  });
});
