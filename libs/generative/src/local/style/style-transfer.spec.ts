import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { toLab } from './lab';
import { styleTransfer, type StyleInput } from './style-transfer';

interface Rgb {
  data: Uint8Array;
  width: number;
  height: number;
}

async function decode(file: string): Promise<Rgb> {
  const { data, info } = await sharp(file).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data), width: info.width, height: info.height };
}

function labMeans(data: Uint8Array): [number, number, number] {
  const { L, a, b } = toLab(data);
  const mean = (plane: Float32Array) => plane.reduce((sum, v) => sum + v, 0) / plane.length;
  return [mean(L), mean(a), mean(b)];
}

function distance(p: number[], q: number[]): number {
  return Math.hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]);
}

/** Pearson correlation of the L gradient magnitudes (|dx| + |dy|) of two images of the same size. */
function gradientCorrelation(first: Uint8Array, second: Uint8Array, width: number, height: number): number {
  const gradients = (data: Uint8Array) => {
    const { L } = toLab(data);
    const out: number[] = [];
    for (let y = 0; y < height - 1; y++) {
      for (let x = 0; x < width - 1; x++) {
        const at = y * width + x;
        out.push(Math.abs(L[at + 1] - L[at]) + Math.abs(L[at + width] - L[at]));
      }
    }
    return out;
  };
  const a = gradients(first);
  const b = gradients(second);
  const mean = (v: number[]) => v.reduce((s, x) => s + x, 0) / v.length;
  const ma = mean(a);
  const mb = mean(b);
  let ab = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < a.length; i++) {
    ab += (a[i] - ma) * (b[i] - mb);
    aa += (a[i] - ma) ** 2;
    bb += (b[i] - mb) ** 2;
  }
  return ab / Math.sqrt(aa * bb);
}

describe('styleTransfer', () => {
  let cat: Rgb;
  let rocket: Rgb;
  let grass: Rgb;
  const job = (over: Partial<StyleInput>): StyleInput => ({
    ...cat,
    reference: rocket,
    styleStrength: 0.75,
    denoisingStrength: 0.75,
    depthStrength: 1,
    seed: 3,
    ...over,
  });

  beforeAll(async () => {
    cat = await decode('test/fixtures/photos/chelsea.png');
    rocket = await decode('test/fixtures/photos/rocket.png');
    grass = await decode('test/fixtures/composites/grass.jpg');
  });

  it('gives back the same bytes at style strength 0', () => {
    expect(Buffer.from(styleTransfer(job({ styleStrength: 0 }))).equals(Buffer.from(cat.data))).toBe(true);
  });

  it.each([
    ['rocket (blue night sky)', () => rocket],
    ['grass (grey texture, another size)', () => grass],
  ])('moves the Lab means towards the reference %s in proportion to the style strength', (_, reference) => {
    const target = labMeans(reference().data);
    const start = distance(labMeans(cat.data), target);
    expect(start).toBeGreaterThan(10);
    const half = distance(labMeans(styleTransfer(job({ reference: reference(), styleStrength: 0.5 }))), target);
    const full = distance(labMeans(styleTransfer(job({ reference: reference(), styleStrength: 1 }))), target);
    expect(half / start).toBeGreaterThan(0.4);
    expect(half / start).toBeLessThan(0.6);
    expect(full / start).toBeLessThan(0.12);
  });

  it('keeps the edges at depth 1 (gradients correlate with the original), fewer of them at depth 0', () => {
    const kept = gradientCorrelation(
      styleTransfer(job({ styleStrength: 1, depthStrength: 1 })),
      cat.data,
      cat.width,
      cat.height,
    );
    expect(kept).toBeGreaterThan(0.9);
    const loose = styleTransfer(job({ reference: grass, styleStrength: 1, depthStrength: 0, denoisingStrength: 1 }));
    const keptGrass = styleTransfer(
      job({ reference: grass, styleStrength: 1, depthStrength: 1, denoisingStrength: 1 }),
    );
    const energy = (data: Uint8Array) => {
      const { L } = toLab(data);
      let sum = 0;
      for (let i = 0; i < L.length - 1; i++) sum += Math.abs(L[i + 1] - L[i]);
      return sum;
    };
    expect(energy(loose)).toBeLessThan(energy(keptGrass));
  });

  it('keeps the object as it was and restyles the rest from the rest: a one-pixel ramp between them', () => {
    // the object: the cat photo's left half
    const { width, height } = cat;
    const object = new Uint8Array(width * height);
    for (let y = 0; y < height; y++) object.fill(255, y * width, y * width + width / 2);
    const out = styleTransfer(job({ object, styleStrength: 1 }));
    const rows = (data: Uint8Array, x0: number, x1: number) => {
      const part: number[] = [];
      for (let y = 0; y < height; y++)
        for (let x = x0; x < x1; x++) part.push(...data.subarray((y * width + x) * 3, (y * width + x) * 3 + 3));
      return Uint8Array.from(part);
    };
    const half = width / 2;
    // two pixels in from the mask's edge the object's bytes are the original's
    expect(Buffer.from(rows(out, 0, half - 1)).equals(Buffer.from(rows(cat.data, 0, half - 1)))).toBe(true);
    // the rest moved towards the reference about as far as the whole image does without an object
    const target = labMeans(rocket.data);
    const start = distance(labMeans(rows(cat.data, half + 1, width)), target);
    expect(distance(labMeans(rows(out, half + 1, width)), target) / start).toBeLessThan(0.2);
  });

  it('is deterministic and keeps the size', () => {
    const first = styleTransfer(job({}));
    expect(first.length).toBe(cat.data.length);
    expect(Buffer.from(styleTransfer(job({}))).equals(Buffer.from(first))).toBe(true);
  });

  it('reads colours and lights from the prompt without a reference, and nothing from other words', () => {
    const before = labMeans(cat.data);
    const blue = labMeans(styleTransfer(job({ reference: undefined, prompt: 'a blue backdrop', styleStrength: 1 })));
    expect(blue[2]).toBeLessThan(before[2] - 15);
    const dark = labMeans(styleTransfer(job({ reference: undefined, prompt: 'moody', styleStrength: 1 })));
    expect(dark[0]).toBeLessThan(before[0] - 8);
    const excluded = styleTransfer(
      job({ reference: undefined, prompt: 'blue', negativePrompt: 'blue', styleStrength: 1 }),
    );
    expect(Buffer.from(excluded).equals(Buffer.from(cat.data))).toBe(true);
    const unknown = styleTransfer(
      job({ reference: undefined, prompt: 'impressionist brush strokes', styleStrength: 1 }),
    );
    expect(Buffer.from(unknown).equals(Buffer.from(cat.data))).toBe(true);
  });
});
