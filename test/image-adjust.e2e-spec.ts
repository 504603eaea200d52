import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gradientJpeg, quadrantsImage } from './fixtures/images';
import { fetchResult } from './helpers/edit-client';
import { call } from './helpers/http';
import { startImageServer, type ImageServer } from './helpers/image-server';
import { startTestApp, type TestApp } from './helpers/test-app';

let app: TestApp;
let images: ImageServer;

/** A scene with a dark left half (shadows with detail) and a bright right half, as lossless PNG. */
async function scene(width = 160, height = 80): Promise<Buffer> {
  const data = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const texture = ((x * 7 + y * 13) % 17) - 8;
      const base = x < width / 2 ? 40 : 200;
      data.set([base + texture, base + texture + 10, base + texture - 5], (y * width + x) * 3);
    }
  }
  return sharp(data, { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
}

beforeAll(async () => {
  images = await startImageServer();
  app = await startTestApp({ FETCH_ALLOW_HOSTS: '127.0.0.1' });
  images.put('/scene.png', await scene());
  images.put('/colour.png', await quadrantsImage({ format: 'png', width: 64, height: 48 }));
  // muted colours, so that more saturation has room to grow
  images.put(
    '/muted.png',
    await sharp({ create: { width: 48, height: 32, channels: 3, background: { r: 170, g: 120, b: 95 } } })
      .png()
      .toBuffer(),
  );
  images.put('/blocky.jpg', await gradientJpeg(256, 192, 12));
  images.put('/clean.jpg', await gradientJpeg(256, 192, 97));
});

afterAll(async () => {
  await app?.close();
  await images?.stop();
});

interface Pixels {
  data: Buffer;
  width: number;
  height: number;
  channels: number;
}

/** Edits `path` with `operations` to PNG and returns the result's pixels. */
async function result(path: string, operations: unknown = {}): Promise<Pixels> {
  const response = await call(app.url, 'POST', '/v1/image/edit', {
    key: app.adminKey,
    body: { input: images.url(path), operations, output: { format: 'png' } },
  });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  const file = await fetchResult(app, response.body.data.output.tmp_url);
  const { data, info } = await sharp(file).raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: info.channels };
}

/** Mean of the RGB values over columns [from, to). */
function meanOf(image: Pixels, from = 0, to = image.width): number {
  let sum = 0;
  let count = 0;
  for (let y = 0; y < image.height; y++) {
    for (let x = from; x < to; x++) {
      const o = (y * image.width + x) * image.channels;
      sum += image.data[o] + image.data[o + 1] + image.data[o + 2];
      count += 3;
    }
  }
  return sum / count;
}

function stdDev(image: Pixels): number {
  const average = meanOf(image);
  let sum = 0;
  for (let i = 0; i < image.data.length; i++) if (i % image.channels < 3) sum += (image.data[i] - average) ** 2;
  return Math.sqrt(sum / ((image.data.length / image.channels) * 3));
}

function chroma(image: Pixels): number {
  let sum = 0;
  for (let i = 0; i < image.data.length; i += image.channels) {
    sum +=
      Math.max(image.data[i], image.data[i + 1], image.data[i + 2]) -
      Math.min(image.data[i], image.data[i + 1], image.data[i + 2]);
  }
  return sum / (image.data.length / image.channels);
}

/** Sum of absolute differences between horizontal neighbours: rises with sharpening. */
function edgeEnergy(image: Pixels): number {
  let sum = 0;
  for (let y = 0; y < image.height; y++) {
    for (let x = 1; x < image.width; x++) {
      sum += Math.abs(
        image.data[(y * image.width + x) * image.channels] - image.data[(y * image.width + x - 1) * image.channels],
      );
    }
  }
  return sum;
}

function increasing(values: number[]): void {
  for (let i = 1; i < values.length; i++) expect(values[i], `${values.join(' < ')}`).toBeGreaterThan(values[i - 1]);
}

describe('adjustments over HTTP', () => {
  it('0 for every adjustment gives the same bytes as no adjustments', async () => {
    const plain = await result('/scene.png');
    const zero = await result('/scene.png', {
      adjustments: { exposure: 0, saturation: 0, contrast: 0, sharpness: 0, hdr: 0 },
    });
    expect(zero.data.equals(plain.data)).toBe(true);
  });

  it('exposure brightens monotonically', async () => {
    const means = [];
    for (const exposure of [-60, -20, 0, 20, 60])
      means.push(meanOf(await result('/scene.png', { adjustments: { exposure } })));
    increasing(means);
  });

  it('contrast spreads the values monotonically', async () => {
    const spreads = [];
    for (const contrast of [-60, -20, 0, 20, 60])
      spreads.push(stdDev(await result('/scene.png', { adjustments: { contrast } })));
    increasing(spreads);
  });

  it('saturation raises chroma monotonically; -100 is grey', async () => {
    const chromas = [];
    for (const saturation of [-100, -50, 0, 50])
      chromas.push(chroma(await result('/muted.png', { adjustments: { saturation } })));
    expect(chromas[0]).toBeLessThan(3);
    increasing(chromas);
  });

  it('sharpness raises edge energy monotonically', async () => {
    const energies = [];
    for (const sharpness of [0, 40, 100])
      energies.push(edgeEnergy(await result('/scene.png', { adjustments: { sharpness } })));
    increasing(energies);
  });

  it('hdr lifts the shadows more than the highlights, monotonically in intensity', async () => {
    const dark = [];
    const bright = [];
    for (const hdr of [0, 30, 60, 100]) {
      const image = await result('/scene.png', { adjustments: { hdr } });
      dark.push(meanOf(image, 0, 70));
      bright.push(meanOf(image, 90, 160));
    }
    increasing(dark);
    expect(dark[3] - dark[0]).toBeGreaterThan(10);
    expect(Math.abs(bright[3] - bright[0])).toBeLessThan((dark[3] - dark[0]) / 2);
  });

  it('hdr accepts the object form with stitching', async () => {
    const image = await result('/scene.png', { adjustments: { hdr: { intensity: 80, stitching: true } } });
    expect(meanOf(image, 0, 70)).toBeGreaterThan(meanOf(await result('/scene.png'), 0, 70));
  });
});

describe('restorations over HTTP', () => {
  /** Mean step across 8x8 block boundaries divided by the mean step inside blocks (1 = no visible grid). */
  function blockiness(image: Pixels): number {
    let boundary = 0;
    let inner = 0;
    let nb = 0;
    let ni = 0;
    for (let y = 0; y < image.height; y++) {
      for (let x = 1; x < image.width; x++) {
        const step = Math.abs(
          image.data[(y * image.width + x) * image.channels] - image.data[(y * image.width + x - 1) * image.channels],
        );
        if (x % 8 === 0) {
          boundary += step;
          nb++;
        } else {
          inner += step;
          ni++;
        }
      }
    }
    return boundary / nb / (inner / ni + 1e-6);
  }

  it('decompress removes block artefacts; strong more than moderate', async () => {
    const before = blockiness(await result('/blocky.jpg'));
    const moderate = blockiness(await result('/blocky.jpg', { restorations: { decompress: 'moderate' } }));
    const strong = blockiness(await result('/blocky.jpg', { restorations: { decompress: 'strong' } }));
    expect(moderate).toBeLessThan(before);
    expect(strong).toBeLessThan(moderate);
  });

  it('decompress auto works on a low-quality JPEG and leaves a clean one as it is', async () => {
    const blocky = blockiness(await result('/blocky.jpg'));
    expect(blockiness(await result('/blocky.jpg', { restorations: { decompress: 'auto' } }))).toBeLessThan(blocky);
    const clean = await result('/clean.jpg');
    const auto = await result('/clean.jpg', { restorations: { decompress: 'auto' } });
    expect(auto.data.equals(clean.data)).toBe(true);
  });

  it('upscale smart_resize enlarges 2x with more detail than plain interpolation', async () => {
    const plain = await result('/colour.png', { resizing: { width: '200%' } });
    const smart = await result('/colour.png', { restorations: { upscale: 'smart_resize' } });
    expect([smart.width, smart.height]).toEqual([128, 96]);
    expect([plain.width, plain.height]).toEqual([128, 96]);
    expect(edgeEnergy(smart)).toBeGreaterThan(edgeEnergy(plain));
  });
});
