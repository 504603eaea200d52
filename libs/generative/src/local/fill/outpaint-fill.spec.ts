import type { PortBox } from '@app/image-pipeline';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { seamVisibility, textureEnergyRatio } from './fill-metrics';
import { mirrorBlurFill } from './mirror-blur-fill';
import { outpaintFill, type OutpaintInput } from './outpaint-fill';

interface Rgb {
  data: Uint8Array;
  width: number;
  height: number;
}

const PHOTOS = [
  'test/fixtures/photos/astronaut.png',
  'test/fixtures/photos/chelsea.png',
  'test/fixtures/photos/coffee.png',
  'test/fixtures/photos/rocket.png',
  'test/fixtures/composites/brick.jpg',
  'test/fixtures/composites/chelsea.jpg',
  'test/fixtures/composites/coffee.jpg',
  'test/fixtures/composites/grass.jpg',
  'test/fixtures/composites/gravel.jpg',
];

async function decode(file: string): Promise<Rgb> {
  const { data, info } = await sharp(file).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data), width: info.width, height: info.height };
}

/** The job the pipeline hands over: `image` at (left, top) of a zeroed canvas `extraX` / `extraY` px larger per side. */
function extend(image: Rgb, extraX: number, extraY: number, feather = 0, variant = 0): OutpaintInput {
  const width = image.width + 2 * extraX;
  const height = image.height + 2 * extraY;
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < image.height; y++) {
    data.set(image.data.subarray(y * image.width * 3, (y + 1) * image.width * 3), ((y + extraY) * width + extraX) * 3);
  }
  const inner = { left: extraX, top: extraY, width: image.width, height: image.height };
  return { data, width, height, inner, feather: { x: feather, y: feather }, seed: 7, variant, preference: 'fast' };
}

/** Pixels of `inner` (shrunk by `margin` on every side) whose bytes differ between a and b. */
function changedInside(a: Uint8Array, b: Uint8Array, width: number, inner: PortBox, margin: number): number {
  let changed = 0;
  for (let y = inner.top + margin; y < inner.top + inner.height - margin; y++) {
    for (let x = inner.left + margin; x < inner.left + inner.width - margin; x++) {
      const at = (y * width + x) * 3;
      if (a[at] !== b[at] || a[at + 1] !== b[at + 1] || a[at + 2] !== b[at + 2]) changed++;
    }
  }
  return changed;
}

/** Pixels outside `inner` that are still (0, 0, 0). */
function holes(data: Uint8Array, width: number, height: number, inner: PortBox): number {
  let count = 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const inside = x >= inner.left && x < inner.left + inner.width && y >= inner.top && y < inner.top + inner.height;
      const at = (y * width + x) * 3;
      if (!inside && data[at] === 0 && data[at + 1] === 0 && data[at + 2] === 0) count++;
    }
  }
  return count;
}

/** A smooth gradient with fine deterministic grain: a stand-in photo with no pure black pixel. */
function grain(width: number, height: number): Rgb {
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const noise = ((Math.imul(x * 374761393 + y * 668265263, 1274126177) >>> 0) % 41) - 20;
      const at = (y * width + x) * 3;
      data[at] = 60 + Math.round((x / width) * 120) + noise;
      data[at + 1] = 90 + Math.round((y / height) * 100) + noise;
      data[at + 2] = 140 + noise;
    }
  }
  return { data, width, height };
}

describe('outpaintFill on real photos extended by 25% on every side', () => {
  const cases: Array<{ file: string; input: OutpaintInput; ours: Uint8Array; mirror: Uint8Array }> = [];

  beforeAll(async () => {
    for (const file of PHOTOS) {
      const image = await decode(file);
      const input = extend(image, Math.round(image.width / 4), Math.round(image.height / 4));
      cases.push({ file, input, ours: outpaintFill(input), mirror: mirrorBlurFill(input) });
    }
  }, 60_000);

  it('keeps every byte of the original with feathering 0 and leaves no hole', () => {
    for (const { input, ours } of cases) {
      expect(changedInside(ours, input.data, input.width, input.inner, 0)).toBe(0);
      // Pure black new pixels no more often than in the original (astronaut, grass and gravel have some).
      const { width, height, inner } = input;
      const black =
        holes(input.data, width, height, { left: 0, top: 0, width: 0, height: 0 }) / (inner.width * inner.height);
      const newArea = width * height - inner.width * inner.height;
      expect(holes(ours, width, height, inner) / newArea).toBeLessThanOrEqual(2 * black);
    }
  });

  it('hides the seam: seamVisibility near 1, and below the mirror-and-blur baseline on every photo', () => {
    const scores = cases.map(({ file, input, ours, mirror }) => ({
      file,
      ours: seamVisibility(ours, input.width, input.height, input.inner),
      mirror: seamVisibility(mirror, input.width, input.height, input.inner),
    }));
    for (const score of scores) {
      expect(score.ours, score.file).toBeLessThan(score.mirror);
      expect(score.ours, score.file).toBeLessThan(1.6);
      expect(score.ours, score.file).toBeGreaterThan(0.6);
    }
    const mean = scores.reduce((sum, s) => sum + s.ours, 0) / scores.length;
    expect(mean).toBeLessThan(1.3);
  });

  // At least 0.4 of the border's detail, where mirror-and-blur keeps a quarter or less. The lowest is the close-up
  // of the coffee cup (0.44; 0.49 before the coarsest level was synthesised ring by ring, when its blockiness was
  // higher): the fill's matches are found at half size there, and where two copied areas meet the pixels are a
  // mean of both (docs/scenes.md, "Outpaint").
  it('fills with texture as detailed as the border, where mirror-and-blur loses most of it', () => {
    for (const { file, input, ours, mirror } of cases) {
      const ourRatio = textureEnergyRatio(ours, input.width, input.height, input.inner);
      const mirrorRatio = textureEnergyRatio(mirror, input.width, input.height, input.inner);
      expect(Math.abs(Math.log(ourRatio)), file).toBeLessThan(Math.abs(Math.log(mirrorRatio)));
      expect(ourRatio, file).toBeGreaterThan(0.4);
      expect(ourRatio, file).toBeLessThan(1.6);
      expect(mirrorRatio, file).toBeLessThan(0.5);
    }
  });

  it('continues the border colour: the new strip next to each edge has about the mean colour of the edge', () => {
    for (const { file, input, ours } of cases) {
      const { inner, width } = input;
      const mean = (x0: number, x1: number, y0: number, y1: number) => {
        const sum = [0, 0, 0];
        for (let y = y0; y < y1; y++)
          for (let x = x0; x < x1; x++) for (let c = 0; c < 3; c++) sum[c] += ours[(y * width + x) * 3 + c];
        return sum.map((v) => v / ((x1 - x0) * (y1 - y0)));
      };
      const band = 8;
      const right = inner.left + inner.width;
      const inside = mean(right - band, right, inner.top, inner.top + inner.height);
      const outside = mean(right, right + band, inner.top, inner.top + inner.height);
      for (let c = 0; c < 3; c++) expect(Math.abs(inside[c] - outside[c]), file).toBeLessThan(16);
    }
  });
});

describe('outpaintFill', () => {
  it('blends only within the feather band: the original beyond it keeps its bytes, the band changes', async () => {
    const input = extend(await decode('test/fixtures/photos/coffee.png'), 40, 40, 12);
    const out = outpaintFill(input);
    expect(changedInside(out, input.data, input.width, input.inner, 12)).toBe(0);
    expect(changedInside(out, input.data, input.width, input.inner, 0)).toBeGreaterThan(input.inner.width * 4);
  });

  it('extends one axis only: the other side stays the original, every new pixel is filled', () => {
    const image = grain(120, 80);
    const input = extend(image, 0, 30);
    const out = outpaintFill(input);
    expect(changedInside(out, input.data, input.width, input.inner, 0)).toBe(0);
    expect(holes(out, input.width, input.height, input.inner)).toBe(0);
    expect(seamVisibility(out, input.width, input.height, input.inner)).toBeLessThan(1.6);
  });

  it.each([
    [1, 1, 3, 2],
    [3, 2, 1, 1],
    [5, 4, 2, 7],
    [30, 2, 10, 3],
  ])('fills around a tiny %dx%d original extended by %d/%d px', (w, h, extraX, extraY) => {
    const input = extend(grain(w, h), extraX, extraY);
    const out = outpaintFill(input);
    expect(out.length).toBe(input.width * input.height * 3);
    expect(changedInside(out, input.data, input.width, input.inner, 0)).toBe(0);
    expect(holes(out, input.width, input.height, input.inner)).toBe(0);
  });

  it('gives the same bytes for the same seed and variant, other bytes for another variant', () => {
    const image = grain(90, 70);
    const first = outpaintFill(extend(image, 20, 20));
    expect(Buffer.from(outpaintFill(extend(image, 20, 20))).equals(Buffer.from(first))).toBe(true);
    expect(Buffer.from(outpaintFill(extend(image, 20, 20, 0, 1))).equals(Buffer.from(first))).toBe(false);
  });

  it('does not repeat one tile: no two new 16x16 blocks along an edge are identical', async () => {
    const input = extend(await decode('test/fixtures/composites/grass.jpg'), 128, 128);
    const out = outpaintFill(input);
    const seen = new Set<string>();
    let repeats = 0;
    for (let bx = 0; bx + 16 <= input.width; bx += 16) {
      const block: number[] = [];
      for (let y = 0; y < 16; y++) for (let x = 0; x < 16; x++) block.push(out[(y * input.width + bx + x) * 3]);
      const key = block.join(',');
      if (seen.has(key)) repeats++;
      seen.add(key);
    }
    expect(repeats).toBe(0);
  });
});

describe('outpaintFill: what the image completion keeps', () => {
  /** A wall (a vertical light gradient with grain) over a table (brown, grain) meeting at row `edge`. */
  function room(width: number, height: number, edge: number): Rgb {
    const data = new Uint8Array(width * height * 3);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const noise = ((Math.imul(x * 374761393 + y * 668265263, 1274126177) >>> 0) % 9) - 4;
        const at = (y * width + x) * 3;
        const wall = [235 - y / 4, 225 - y / 4, 205 - y / 4];
        const table = [150, 100, 60];
        const colour = y < edge ? wall : table;
        for (let c = 0; c < 3; c++) data[at + c] = Math.round(colour[c] + noise);
      }
    }
    return { data, width, height };
  }

  it('continues a table edge straight across the new area', () => {
    const input = extend(room(240, 160, 100), 80, 30);
    const out = outpaintFill({ ...input, preference: 'optimal' });
    // in every new column, the largest vertical step of the luma lies on the edge's row (30 + 100) within 2 px
    const { width } = input;
    const luma = (x: number, y: number) => {
      const at = (y * width + x) * 3;
      return 0.299 * out[at] + 0.587 * out[at + 1] + 0.114 * out[at + 2];
    };
    const off: number[] = [];
    for (const x of [...Array(80).keys(), ...Array.from({ length: 80 }, (_, i) => 320 + i)]) {
      let best = 0;
      let row = 0;
      for (let y = 31; y < 190; y++) {
        const step = Math.abs(luma(x, y) - luma(x, y - 1));
        if (step > best) {
          best = step;
          row = y;
        }
      }
      off.push(Math.abs(row - 130));
    }
    expect(Math.max(...off)).toBeLessThanOrEqual(2);
  });

  it('never copies the object it is told to leave out, and copies it when not told', () => {
    // a bright red disc that the original's right edge cuts, on a grainy gradient, extended by half on each side
    const image = grain(120, 120);
    const disc = (x: number, y: number) => (x - 110) ** 2 + (y - 60) ** 2 < 25 ** 2;
    for (let y = 0; y < 120; y++) {
      for (let x = 0; x < 120; x++) if (disc(x, y)) image.data.set([230, 20, 30], (y * 120 + x) * 3);
    }
    const input = extend(image, 60, 60);
    const exclude = new Uint8Array(input.width * input.height);
    for (let y = 0; y < 120; y++)
      for (let x = 0; x < 120; x++) if (disc(x, y)) exclude[(y + 60) * input.width + x + 60] = 255;
    const red = (out: Uint8Array) => {
      let count = 0;
      for (let y = 0; y < input.height; y++) {
        for (let x = 0; x < input.width; x++) {
          const inside = x >= 60 && x < 180 && y >= 60 && y < 180;
          const at = (y * input.width + x) * 3;
          if (!inside && out[at] > 180 && out[at + 1] < 80) count++;
        }
      }
      return count;
    };
    expect(red(outpaintFill({ ...input, exclude }))).toBe(0);
    // the same canvas without the mask: the fill carries the cut disc on beyond the edge (the count can see it)
    expect(red(outpaintFill(input))).toBeGreaterThan(50);
  });

  it('continues the table under an object near the edge, not the sliver of its shadow nor a dark wall', async () => {
    // a grainy table with a dark wall in its top-left corner; a red saucer (the object, an ellipse) stands 11 px
    // above the bottom edge, its shadow a crescent under it that the edge cuts
    const [width, height] = [480, 320];
    const image = grain(width, height);
    const inEllipse = (x: number, y: number, cy: number, b: number) => ((x - 300) / 120) ** 2 + ((y - cy) / b) ** 2 < 1;
    const saucer = (x: number, y: number) => inEllipse(x, y, 260, 48);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const at = (y * width + x) * 3;
        const noise = image.data[at + 2] - 140;
        if (saucer(x, y)) image.data.set([230, 20, 30], at);
        else if (x < 140 && y < 90) image.data.set([20 + noise / 4, 14, 10], at);
        else if (inEllipse(x, y, 268, 52)) image.data.set([48 + noise / 4, 30, 20], at);
        else image.data.set([150 + noise, 100 + noise, 60 + noise], at);
      }
    }
    const extra = 120;
    const input = extend(image, extra, extra);
    const exclude = new Uint8Array(input.width * input.height);
    for (let y = 0; y < height; y++)
      for (let x = 0; x < width; x++) if (saucer(x, y)) exclude[(y + extra) * input.width + x + extra] = 255;
    const out = outpaintFill({ ...input, exclude, preference: 'optimal' });
    // under the saucer, from 24 px beyond the edge: 8 x 8 blocks as light as the table (luma about 110), none as
    // dark as the shadow (35) or the wall (16)
    const luma = (x: number, y: number) => {
      const at = (y * input.width + x) * 3;
      return 0.299 * out[at] + 0.587 * out[at + 1] + 0.114 * out[at + 2];
    };
    const blocks: number[] = [];
    for (let y = extra + height + 24; y + 8 <= input.height; y += 8) {
      for (let x = extra + 240; x + 8 <= extra + 360; x += 8) {
        let sum = 0;
        for (let v = 0; v < 8; v++) for (let u = 0; u < 8; u++) sum += luma(x + u, y + v);
        blocks.push(sum / 64);
      }
    }
    expect(Math.min(...blocks)).toBeGreaterThan(80);
  });

  it('continues a smooth wall smoothly: no tile edges in the new area', () => {
    const input = extend(room(200, 200, 400), 60, 60);
    const out = outpaintFill({ ...input, preference: 'optimal' });
    // the new area's luma second difference stays within the grain's own (no steps where copied areas meet)
    const { width, height, inner } = input;
    let worst = 0;
    for (let y = 2; y < height - 2; y++) {
      for (let x = 0; x < width; x++) {
        const inside =
          x >= inner.left && x < inner.left + inner.width && y >= inner.top && y < inner.top + inner.height;
        if (inside) continue;
        const l = (yy: number) => out[(yy * width + x) * 3 + 1];
        // vertical mean over 5 rows on either side: the grain (+-4) averages out, a step does not
        const above = (l(y - 2) + l(y - 1)) / 2;
        const below = (l(y + 1) + l(y + 2)) / 2;
        worst = Math.max(worst, Math.abs(above - below));
      }
    }
    expect(worst).toBeLessThan(12);
  });
});

describe('seamVisibility', () => {
  const image = grain(100, 100);
  const inner = { left: 20, top: 20, width: 60, height: 60 };

  it('is about 1 across a line that is not a seam, and far above 1 where the outside is shifted', () => {
    expect(seamVisibility(image.data, 100, 100, inner)).toBeGreaterThan(0.8);
    expect(seamVisibility(image.data, 100, 100, inner)).toBeLessThan(1.2);
    const shifted = Uint8Array.from(image.data);
    for (let y = 0; y < 100; y++) {
      for (let x = 0; x < 100; x++) {
        const inside = x >= 20 && x < 80 && y >= 20 && y < 80;
        if (!inside)
          for (let c = 0; c < 3; c++)
            shifted[(y * 100 + x) * 3 + c] = Math.min(255, shifted[(y * 100 + x) * 3 + c] + 40);
      }
    }
    expect(seamVisibility(shifted, 100, 100, inner)).toBeGreaterThan(2);
  });
});
