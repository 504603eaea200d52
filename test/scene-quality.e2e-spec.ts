import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchResult } from './helpers/edit-client';
import { startImageServer, type ImageServer } from './helpers/image-server';
import { createScene, hardCutout, rawOf } from './helpers/scene-fixtures';
import { objectOf } from './helpers/shadow-metrics';
import { startTestApp, type TestApp } from './helpers/test-app';

/*
 * What a viewer sees of the local backend's scenes beyond the shadows (scene-shadows.e2e-spec.ts), over HTTP on
 * the service's own samples: an object enlarged past its pixels is sharper than interpolation would make it,
 * and the four variants of one request differ by a measured amount.
 */

const SAMPLES = join(__dirname, '..', 'libs', 'storage', 'samples');

let app: TestApp;
let images: ImageServer;
/** The sample mug cut out by the service, its alpha made hard (0 or 255): the object's pixels are exactly known. */
let mug: Buffer;

beforeAll(async () => {
  images = await startImageServer();
  app = await startTestApp({ FETCH_ALLOW_HOSTS: '127.0.0.1' });
  images.put('/mug.jpg', readFileSync(join(SAMPLES, 'mug.jpg')));
  images.put('/bottle.png', readFileSync(join(SAMPLES, 'bottle.png')));
  mug = await hardCutout(app, images.url('/mug.jpg'));
  images.put('/mug.png', mug);
}, 60_000);

afterAll(async () => {
  await app?.close();
  await images?.stop();
});

async function scene(body: Record<string, unknown>) {
  const res = await createScene(app, body);
  expect(res.status, res.text).toBe(200);
  const results = await Promise.all(
    res.body.data.output.map(async (output: { tmp_url: string }) => rawOf(await fetchResult(app, output.tmp_url))),
  );
  return { data: res.body.data, results };
}

const luminance = (data: Uint8Array, i: number, channels: number) =>
  0.2126 * data[i * channels] + 0.7152 * data[i * channels + 1] + 0.0722 * data[i * channels + 2];

describe('an object enlarged past its own pixels', () => {
  it('goes through the super-resolution network: its inside sharper than Lanczos makes it (edge energy)', async () => {
    // the default placement (scale 1): the mug's 287 px are enlarged about 3.6 times to the scene's edges
    const body = (color: string) => ({
      object: { image_url: images.url('/mug.png') },
      scene: { effect: 'shadows', color },
      output: { number_of_images: 1, format: 'png' },
    });
    const white = await scene(body('#ffffff'));
    const grey = await scene(body('#404040'));
    expect(white.data.profiling.details.enlarged).toMatch(/^3\.\d\dx by super-resolution$/);
    const [a] = white.results;
    const [b] = grey.results;
    // the object: the pixels the two backdrops leave the same; its box
    const { width } = a;
    const { mask: inside, box } = objectOf(a, b);
    const boxWidth = box.right - box.left + 1;
    const boxHeight = box.base - box.top + 1;
    // interpolation: the same object trimmed to its box and enlarged to the same box with Lanczos-3
    const lanczos = await sharp(await sharp(mug).trim({ threshold: 8 }).toBuffer())
      .resize({ width: boxWidth, height: boxHeight, fit: 'fill', kernel: 'lanczos3' })
      .removeAlpha()
      .raw()
      .toBuffer();
    // mean squared central gradient over the object's inside (4 px away from its outline)
    const energy = (value: (x: number, y: number) => number) => {
      let sum = 0;
      let count = 0;
      for (let y = 4; y < boxHeight - 4; y++)
        for (let x = 4; x < boxWidth - 4; x++) {
          const at = (dx: number, dy: number) => inside[(box.top + y + dy) * width + box.left + x + dx];
          if (!at(0, 0) || !at(-4, 0) || !at(4, 0) || !at(0, -4) || !at(0, 4)) continue;
          const gx = value(x + 1, y) - value(x - 1, y);
          const gy = value(x, y + 1) - value(x, y - 1);
          sum += gx * gx + gy * gy;
          count += 1;
        }
      expect(count).toBeGreaterThan(100_000);
      return sum / count;
    };
    const served = energy((x, y) => luminance(a.data, (box.top + y) * width + box.left + x, a.channels));
    const interpolated = energy((x, y) => luminance(lanczos, y * boxWidth + x, 3));
    expect(
      served / interpolated,
      `edge energy ${served.toFixed(1)} against Lanczos ${interpolated.toFixed(1)}`,
    ).toBeGreaterThan(1.15);
  });

  it('is left to Lanczos when it is enlarged by 1.5 or less (the network would cost seconds for no visible gain)', async () => {
    const { data } = await scene({
      object: { image_url: images.url('/bottle.png'), scale: 0.7 },
      scene: { effect: 'shadows' },
      output: { number_of_images: 1 },
    });
    expect(data.profiling.details.enlarged).toBeUndefined();
  });
});

describe('the variants of one request', () => {
  it('four images of one prompt differ pairwise by a measured amount (light, backdrop tone, the surface pattern)', async () => {
    const { results } = await scene({
      object: { image_url: images.url('/bottle.png'), scale: 0.6 },
      scene: { prompt: 'white marble table, soft warm light' },
      output: { number_of_images: 4, format: 'png' },
    });
    expect(results).toHaveLength(4);
    const differences: string[] = [];
    for (let a = 0; a < 4; a++)
      for (let b = a + 1; b < 4; b++) {
        let sum = 0;
        for (let i = 0; i < results[a].data.length; i++) sum += Math.abs(results[a].data[i] - results[b].data[i]);
        const mean = sum / results[a].data.length;
        differences.push(`${a}-${b}: ${mean.toFixed(1)}`);
        // the mean absolute difference of every channel of every pixel, the product's own pixels included
        expect(mean, differences.join(', ')).toBeGreaterThan(5);
      }
  });
});
