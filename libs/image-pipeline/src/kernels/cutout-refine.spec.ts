import { describe, expect, it } from 'vitest';
import { cropPixels, placePlane, type RawPixels } from '../workers/raw-pixels';
import { refineCutout } from './cutout-refine';

const SIZE = 160;

/** A deterministic texture value in -1..1 (a hash of the position): gravel, grass, noise. */
function noise(x: number, y: number, seed = 1): number {
  const h = Math.sin(x * 12.9898 + y * 78.233 + seed * 37.719) * 43758.5453;
  return 2 * (h - Math.floor(h)) - 1;
}

function image(colour: (x: number, y: number) => [number, number, number]): RawPixels {
  const data = new Uint8Array(SIZE * SIZE * 3);
  for (let y = 0; y < SIZE; y++) {
    for (let x = 0; x < SIZE; x++)
      data.set(
        colour(x, y).map((v) => Math.max(0, Math.min(255, Math.round(v)))),
        (y * SIZE + x) * 3,
      );
  }
  return { data, width: SIZE, height: SIZE, channels: 3 };
}

/** An alpha (0..255) of `inside(x, y)`, with a ramp `soft` px wide at its edge by supersampling `inside`. */
function mask(inside: (x: number, y: number) => boolean): Uint8Array {
  const out = new Uint8Array(SIZE * SIZE);
  for (let y = 0; y < SIZE; y++) for (let x = 0; x < SIZE; x++) out[y * SIZE + x] = inside(x, y) ? 255 : 0;
  return out;
}

const share = (alpha: Uint8Array, where: Uint8Array, test: (a: number) => boolean) => {
  let n = 0;
  let hit = 0;
  for (let i = 0; i < alpha.length; i++) {
    if (!where[i]) continue;
    n++;
    if (test(alpha[i])) hit++;
  }
  return hit / n;
};

const gravel = (x: number, y: number): [number, number, number] => {
  const v = 140 + 25 * noise(x, y) + 10 * noise(x >> 2, y >> 2, 2);
  return [v, v - 6, v - 12];
};
const radius = (x: number, y: number) => Math.hypot(x - 80, y - 80);

describe('refineCutout', () => {
  it('opens the hole of a ring the network filled in', () => {
    const ring = (x: number, y: number) => radius(x, y) <= 60 && radius(x, y) >= 36;
    const picture = image((x, y) => (ring(x, y) ? [230, 180 + 30 * Math.cos(x / 9), 60] : gravel(x, y)));
    const prior = mask((x, y) => radius(x, y) <= 60);
    const alpha = refineCutout(picture, prior, 4);
    const hole = mask((x, y) => radius(x, y) < 30);
    const body = mask((x, y) => radius(x, y) <= 57 && radius(x, y) >= 39);
    expect(share(alpha, hole, (a) => a <= 25)).toBeGreaterThan(0.99);
    expect(share(alpha, body, (a) => a >= 230)).toBeGreaterThan(0.99);
  });

  it('keeps the body of a white product on a white backdrop (its colours are the background’s)', () => {
    const box = (x: number, y: number) => x >= 30 && x < 130 && y >= 40 && y < 120;
    const outline = (x: number, y: number) => box(x, y) && !(x >= 32 && x < 128 && y >= 42 && y < 118);
    const picture = image((x, y) =>
      outline(x, y) ? [150, 160, 175] : box(x, y) ? [248 + 4 * noise(x, y), 248, 250] : [244, 244, 246],
    );
    const prior = mask(box);
    const alpha = refineCutout(picture, prior, 4);
    const inner = mask((x, y) => x >= 36 && x < 124 && y >= 46 && y < 114);
    expect(share(alpha, inner, (a) => a >= 230)).toBeGreaterThan(0.99);
  });

  it('clears the network’s haze between two stems where the colours are the backdrop’s', () => {
    const stem = (x: number, y: number) => (Math.abs(x - 50) < 4 || Math.abs(x - 110) < 4) && y > 20 && y < 140;
    const pot = (x: number, y: number) => x >= 30 && x < 130 && y >= 140;
    const picture = image((x, y) =>
      stem(x, y) ? [46, 100, 50] : pot(x, y) ? [190, 100, 60] : [246 - y / 8, 225 - y / 8, 211 - y / 8],
    );
    // the network: sure of the stems and the pot, a haze of 0.45 between the stems
    const prior = mask((x, y) => stem(x, y) || pot(x, y));
    for (let y = 25; y < 135; y++) for (let x = 56; x < 104; x++) prior[y * SIZE + x] = 115;
    const alpha = refineCutout(picture, prior, 2);
    const gap = mask((x, y) => x >= 60 && x < 100 && y >= 30 && y < 130);
    expect(share(alpha, gap, (a) => a <= 25)).toBeGreaterThan(0.995);
    expect(share(alpha, mask(pot), (a) => a >= 230)).toBeGreaterThan(0.98);
  });
  it('opens a gap that shows a brick wall’s mortar: as smooth as the wall’s mortar, if not its bricks', () => {
    // rough red bricks between smooth pale mortar lines 7 px wide; two green stems, and between them the network
    // filled a strip that shows only mortar
    const mortar = (x: number, y: number) => y % 24 < 7 || (x + (Math.floor(y / 24) % 2) * 20) % 40 < 7;
    const stem = (x: number, y: number) => (Math.abs(x - 60) < 4 || Math.abs(x - 100) < 4) && y > 20 && y < 140;
    const strip = (x: number, y: number) => x >= 64 && x < 96 && y > 20 && y < 140;
    const picture = image((x, y) =>
      stem(x, y)
        ? [50, 120, 55]
        : strip(x, y) || mortar(x, y)
          ? [200 + 2 * noise(x, y), 150, 130]
          : [170 + 30 * noise(x, y), 80 + 20 * noise(x, y, 3), 60 + 10 * noise(x, y, 5)],
    );
    const prior = mask((x, y) => stem(x, y) || strip(x, y));
    const alpha = refineCutout(picture, prior, 2);
    const gap = mask((x, y) => x >= 68 && x < 92 && y >= 28 && y < 132);
    expect(share(alpha, gap, (a) => a <= 25)).toBeGreaterThan(0.97);
    expect(share(alpha, mask(stem), (a) => a >= 230)).toBeGreaterThan(0.95);
  });

  it('opens a wheel the network filled in, its background most of what the network marked', () => {
    const angle = (x: number, y: number) => Math.atan2(y - 80, x - 80);
    // the distance to the nearest of 12 spokes
    const spokeDistance = (x: number, y: number) => {
      const step = Math.PI / 6;
      const off = Math.abs(((angle(x, y) % step) + step) % step);
      return radius(x, y) * Math.sin(Math.min(off, step - off));
    };
    const tyre = (x: number, y: number) => radius(x, y) <= 62 && radius(x, y) >= 56;
    const spoke = (x: number, y: number) => radius(x, y) < 56 && spokeDistance(x, y) < 1.2;
    const picture = image((x, y) =>
      tyre(x, y) ? [40, 42, 50] : spoke(x, y) ? [150, 152, 156] : [243 + 3 * noise(x, y), 243, 246],
    );
    // the network: the whole disc, sure of it
    const alpha = refineCutout(
      picture,
      mask((x, y) => radius(x, y) <= 62),
      2,
    );
    const between = mask((x, y) => radius(x, y) < 50 && radius(x, y) > 12 && spokeDistance(x, y) > 4);
    const rubber = mask((x, y) => radius(x, y) <= 61 && radius(x, y) >= 57);
    expect(share(alpha, between, (a) => a <= 25)).toBeGreaterThan(0.97);
    expect(share(alpha, rubber, (a) => a >= 230)).toBeGreaterThan(0.98);
  });
});

describe('refineCutout on a crop', () => {
  it('answers inside the box as it does on the whole image (the backdrop learned from all of it)', () => {
    const ring = (x: number, y: number) => radius(x, y) <= 20 && radius(x, y) >= 11;
    // a blue strip on the left the crop does not see, and a fleck of that blue beside the ring: foreign to a
    // backdrop learned from the crop alone (the cut kept 11 of its pixels then), the backdrop's own colour here
    const blue = (x: number, y: number) => x < 20 || (x >= 102 && x < 106 && y >= 78 && y < 82);
    const picture = image((x, y) =>
      ring(x, y) ? [230, 180 + 30 * Math.cos(x / 5), 60] : blue(x, y) ? [60, 90, 200] : gravel(x, y),
    );
    // the network unsure of a band around the ring, the fleck in it
    const prior = mask((x, y) => radius(x, y) <= 26);
    for (let i = 0; i < prior.length; i++) if (radius(i % SIZE, Math.floor(i / SIZE)) > 20 && prior[i]) prior[i] = 128;
    const whole = refineCutout(picture, prior, 1);
    // about the box the kernel would take: the object's widened by REFINE_REACH (48 at a coarse pixel of 1 here)
    const box = { left: 28, top: 2, width: 130, height: 156 };
    const part = refineCutout(
      cropPixels(picture, box),
      cropPixels({ ...picture, data: prior, channels: 1 }, box).data,
      1,
      {
        image: picture,
        box,
      },
    );
    const placed = placePlane(
      { data: part, width: box.width, height: box.height, channels: 1 },
      box.left,
      box.top,
      SIZE,
      SIZE,
    );
    let differ = 0;
    for (let i = 0; i < whole.length; i++) if (Math.abs(whole[i] - placed[i]) > 2) differ++;
    expect(differ).toBe(0);
    const hole = mask((x, y) => radius(x, y) < 8);
    expect(share(whole, hole, (a) => a <= 25)).toBeGreaterThan(0.99);
  });
});
