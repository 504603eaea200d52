import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import type { RawPixels } from '../workers/raw-pixels';
import { plateBlurKernel } from './plate-blur.kernel';

/**
 * The blur on pixels (no model): a plate drawn at a known place, its characters' box given as the detector
 * would give it; and text that is not on a plate's surface.
 */
const W = 600;
const H = 300;
/** The plate 100..420 x 100..170; its characters' box 120..400 x 110..160. */
const TEXT = [
  { x: 120, y: 110 },
  { x: 400, y: 110 },
  { x: 400, y: 160 },
  { x: 120, y: 160 },
];

async function scene(plate: boolean, channels: 3 | 4 = 3): Promise<RawPixels> {
  const body = plate
    ? '<rect x="100" y="100" width="320" height="70" fill="#f5f5f0" stroke="#111" stroke-width="4"/>' +
      '<text x="260" y="155" font-family="DejaVu Sans Mono" font-weight="bold" font-size="56" text-anchor="middle" fill="#111">AB 123</text>'
    : // soft grey text straight on a noisy pattern
      '<text x="260" y="155" font-family="DejaVu Sans Mono" font-size="56" text-anchor="middle" fill="#7d7d7d">AB 123</text>';
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}"><defs><pattern id="p" width="12" height="12" patternUnits="userSpaceOnUse"><rect width="12" height="12" fill="#5a7d4e"/><rect width="6" height="6" fill="#8fb07a"/></pattern></defs><rect width="100%" height="100%" fill="url(#p)"/>${body}</svg>`;
  let image = sharp(Buffer.from(svg));
  image = channels === 3 ? image.removeAlpha() : image.ensureAlpha(0.5);
  const { data, info } = await image.raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data), width: info.width, height: info.height, channels: info.channels };
}

/** Mean squared Laplacian of the first channel over a rectangle. */
function energy(image: RawPixels, x0: number, y0: number, x1: number, y1: number): number {
  const { data, width, channels } = image;
  const at = (x: number, y: number) => data[(y * width + x) * channels];
  let sum = 0;
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      const l = at(x - 1, y) + at(x + 1, y) + at(x, y - 1) + at(x, y + 1) - 4 * at(x, y);
      sum += l * l;
    }
  }
  return sum / ((x1 - x0) * (y1 - y0));
}

describe('plateBlurKernel', () => {
  it('blurs a plate with its border beyond recognition and leaves everything else as it was', async () => {
    const original = await scene(true);
    const copy = { ...original, data: original.data.slice() };
    const { image, blurred } = plateBlurKernel({ image: copy, plates: [{ text: TEXT, height: 50 }] });
    expect(blurred).toEqual([true]);
    const before = energy(original, 125, 115, 395, 155);
    const after = energy(image, 125, 115, 395, 155);
    expect(before).toBeGreaterThan(500);
    expect(after / before).toBeLessThan(0.01);
    // the plate's border changed too (the fit reached it), pixels well away from the plate did not
    const changed = (x: number, y: number) => image.data[(y * W + x) * 3] !== original.data[(y * W + x) * 3];
    expect(changed(101, 135) || changed(102, 135) || changed(103, 135)).toBe(true);
    for (const [x, y] of [
      [20, 20],
      [500, 250],
      [60, 135],
      [480, 135],
      [260, 220],
    ]) {
      expect(changed(x, y), `${x},${y}`).toBe(false);
    }
  });

  it('keeps the alpha channel as it was', async () => {
    const original = await scene(true, 4);
    const copy = { ...original, data: original.data.slice() };
    const { image, blurred } = plateBlurKernel({ image: copy, plates: [{ text: TEXT, height: 50 }] });
    expect(blurred).toEqual([true]);
    let differing = 0;
    for (let i = 3; i < image.data.length; i += 4) if (image.data[i] !== original.data[i]) differing++;
    expect(differing).toBe(0);
  });

  it('leaves soft text on a busy pattern alone (no contrast, no plate surface)', async () => {
    const original = await scene(false);
    const copy = { ...original, data: original.data.slice() };
    const { image, blurred } = plateBlurKernel({ image: copy, plates: [{ text: TEXT, height: 50 }] });
    expect(blurred).toEqual([false]);
    expect(Buffer.from(image.data).equals(Buffer.from(original.data))).toBe(true);
  });
});
