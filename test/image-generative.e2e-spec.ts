import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mirrorBlurFill, seamVisibility } from '@app/generative';
import { fetchResult, editImage } from './helpers/edit-client';
import { call } from './helpers/http';
import { startImageServer, type ImageServer } from './helpers/image-server';
import { rawOf } from './helpers/scene-fixtures';
import { startWorkerFor, waitForTask } from './helpers/tasks';
import { startTestApp, type TestApp } from './helpers/test-app';
import type { RunningProcess } from './helpers/process';

/*
 * `fit: outpaint` and `style_transfer` in the edit endpoint with the local generative backend, over HTTP: the
 * contract's outpaint arithmetic, the image's own pixels kept, the seam measured against a mirror-and-blur fill,
 * style statistics moved in proportion to style_strength, and both in an asynchronous task.
 */

const PHOTOS = join(__dirname, 'fixtures', 'composites');
/** The service's own samples (drawn by scripts/make-samples.mjs): a mug on a table, a potted plant. */
const SAMPLES = join(__dirname, '..', 'libs', 'storage', 'samples');

let app: TestApp;
let worker: RunningProcess | undefined;
let images: ImageServer;
let photo: Buffer;

beforeAll(async () => {
  images = await startImageServer();
  app = await startTestApp({ FETCH_ALLOW_HOSTS: '127.0.0.1' });
  worker = await startWorkerFor(app);
  // a 400x300 PNG cut from a real photo (a lossless input, so kept pixels compare exactly)
  photo = await sharp(readFileSync(join(PHOTOS, 'coffee.jpg')))
    .extract({ left: 100, top: 50, width: 400, height: 300 })
    .png()
    .toBuffer();
  images.put('/photo.png', photo);
  for (const name of ['brick', 'grass', 'gravel', 'chelsea'])
    images.put(`/${name}.jpg`, readFileSync(join(PHOTOS, `${name}.jpg`)));
  images.put('/blue.png', await blueReference());
  for (const name of ['mug', 'plant']) images.put(`/${name}.jpg`, readFileSync(join(SAMPLES, `${name}.jpg`)));
});

afterAll(async () => {
  await worker?.stop();
  await app?.close();
  await images?.stop();
});

/** A reference image in cold blue tones with some texture. */
async function blueReference(): Promise<Buffer> {
  const data = Buffer.alloc(128 * 128 * 3);
  for (let i = 0; i < 128 * 128; i += 1) {
    data[i * 3] = 20 + (i % 29);
    data[i * 3 + 1] = 60 + (i % 41);
    data[i * 3 + 2] = 170 + (i % 53);
  }
  return sharp(data, { raw: { width: 128, height: 128, channels: 3 } })
    .png()
    .toBuffer();
}

async function edited(input: string, operations: unknown, output: unknown = { format: 'png' }) {
  const res = await editImage(app, { input: images.url(input), operations, output });
  expect(res.status, res.text).toBe(200);
  return { data: res.body.data, image: await rawOf(await fetchResult(app, res.body.data.output.tmp_url)) };
}

describe('fit: outpaint', () => {
  it.each<[string, unknown, number, number]>([
    [
      'outpaint_by "10% 5%" (the contract: 20% wider, 10% higher)',
      { fit: { type: 'outpaint', outpaint_by: '10% 5%' } },
      480,
      330,
    ],
    ['outpaint_by "20%"', { fit: { type: 'outpaint', outpaint_by: '20%' } }, 560, 420],
    ['outpaint_by "50px"', { fit: { type: 'outpaint', outpaint_by: '50px' } }, 500, 400],
    ['outpaint_by "40px 10px"', { fit: { type: 'outpaint', outpaint_by: '40px 10px' } }, 480, 320],
    ['both sides "auto"', { width: 'auto', height: 'auto', fit: { type: 'outpaint', outpaint_by: '10%' } }, 480, 360],
    ['a final size, fit "outpaint" by name', { width: 800, height: 300, fit: 'outpaint' }, 800, 300],
    ['outpaint_by, then a final width', { width: 240, fit: { type: 'outpaint', outpaint_by: '10% 5%' } }, 240, 165],
  ])('%s', async (_name, resizing, width, height) => {
    const { data, image } = await edited('/photo.png', { resizing });
    expect(data.output).toMatchObject({ width, height });
    expect([image.width, image.height]).toEqual([width, height]);
  });

  it("keeps the image's own pixels beyond the feather band, and fills the whole canvas", async () => {
    const { image } = await edited('/photo.png', {
      resizing: { fit: { type: 'outpaint', outpaint_by: '10% 5%', feathering: '5%' } },
    });
    const original = await rawOf(photo);
    // the photo sits at (40, 15); 5% feathering is 20 px across left/right and 15 px across top/bottom
    let differing = 0;
    for (let y = 15; y < 285; y += 1) {
      for (let x = 20; x < 380; x += 1) {
        const o = (y * 400 + x) * original.channels;
        const p = ((y + 15) * 480 + x + 40) * image.channels;
        for (let c = 0; c < 3; c += 1) if (original.data[o + c] !== image.data[p + c]) differing += 1;
      }
    }
    expect(differing).toBe(0);
    // no hole left in the new area: no more near-black pixels there than the photo itself has
    const blackShare = (image: Awaited<ReturnType<typeof rawOf>>, inside: (x: number, y: number) => boolean) => {
      let black = 0;
      let all = 0;
      for (let y = 0; y < image.height; y += 1) {
        for (let x = 0; x < image.width; x += 1) {
          if (!inside(x, y)) continue;
          const o = (y * image.width + x) * image.channels;
          all += 1;
          if (image.data[o] + image.data[o + 1] + image.data[o + 2] < 6) black += 1;
        }
      }
      return black / all;
    };
    const added = blackShare(image, (x, y) => x < 40 || x >= 440 || y < 15 || y >= 315);
    expect(added).toBeLessThanOrEqual(blackShare(original, () => true) + 0.001);
  });

  it('hides the seam better than a mirror-and-blur fill of the same images (seam visibility measured)', async () => {
    for (const name of ['brick', 'grass', 'gravel', 'chelsea']) {
      const { image } = await edited(`/${name}.jpg`, {
        resizing: { fit: { type: 'outpaint', outpaint_by: '25%', feathering: '0%' } },
      });
      const source = await rawOf(readFileSync(join(PHOTOS, `${name}.jpg`)));
      const inner = {
        left: Math.round(source.width * 0.25),
        top: Math.round(source.height * 0.25),
        width: source.width,
        height: source.height,
      };
      const rgb = (raw: Awaited<ReturnType<typeof rawOf>>) =>
        new Uint8Array(raw.data.buffer, raw.data.byteOffset, raw.data.length);
      const canvas = new Uint8Array(image.width * image.height * 3);
      for (let y = 0; y < source.height; y += 1) {
        canvas.set(
          rgb(source).subarray(y * source.width * 3, (y + 1) * source.width * 3),
          ((y + inner.top) * image.width + inner.left) * 3,
        );
      }
      const baseline = mirrorBlurFill({
        data: canvas,
        width: image.width,
        height: image.height,
        inner,
        feather: { x: 0, y: 0 },
        seed: 1,
        variant: 0,
        preference: 'optimal',
      });
      const ours = seamVisibility(rgb(image), image.width, image.height, inner);
      const mirrored = seamVisibility(baseline, image.width, image.height, inner);
      expect(ours, `${name}: ours ${ours.toFixed(3)} vs mirror-and-blur ${mirrored.toFixed(3)}`).toBeLessThan(mirrored);
    }
  });

  it('outpaints the plant sample into a banner: no copy of the plant, no tile edge on the wall or the floor', async () => {
    const { image } = await edited('/plant.jpg', { resizing: { fit: { type: 'outpaint', outpaint_by: '50% 10%' } } });
    // 600x600 placed at (300, 60) on 1200x720
    const at = (x: number, y: number, c: number) => image.data[(y * image.width + x) * image.channels + c];
    const outside = (x: number, y: number) => x < 300 || x >= 900 || y < 60 || y >= 660;
    const copies = { leaf: 0, pot: 0 };
    for (let y = 0; y < image.height; y += 1) {
      for (let x = 0; x < image.width; x += 1) {
        if (!outside(x, y)) continue;
        const [r, g, b] = [at(x, y, 0), at(x, y, 1), at(x, y, 2)];
        if (g > r + 25 && g > b + 15) copies.leaf += 1;
        if (r > g + 60 && r > b + 80) copies.pot += 1;
      }
    }
    expect(copies).toEqual({ leaf: 0, pot: 0 });
    // the floor line: the largest step of the green channel in the photo's first column
    let floor = 0;
    let best = 0;
    for (let y = 61; y < 660; y += 1) {
      const step = Math.abs(at(300, y, 1) - at(300, y - 1, 1));
      if (step > best) [best, floor] = [step, y];
    }
    // away from it, the new area is smooth: means of two pixels on either side of any line differ by little
    // (a patchwork of copied tiles steps by 10 to 30 levels where two tiles meet)
    let worst = 0;
    for (let y = 2; y < image.height - 2; y += 1) {
      if (Math.abs(y - floor) <= 3) continue;
      for (let x = 2; x < image.width - 2; x += 1) {
        if (!outside(x, y)) continue;
        for (let c = 0; c < 3; c += 1) {
          const across = Math.abs(at(x - 2, y, c) + at(x - 1, y, c) - at(x + 1, y, c) - at(x + 2, y, c)) / 2;
          const down = Math.abs(at(x, y - 2, c) + at(x, y - 1, c) - at(x, y + 1, c) - at(x, y + 2, c)) / 2;
          worst = Math.max(worst, across, down);
        }
      }
    }
    expect(worst, `floor line at row ${floor}`).toBeLessThan(8);
  });

  it("continues the mug sample's table edge straight into the new area on both sides", async () => {
    const { image } = await edited('/mug.jpg', { resizing: { fit: { type: 'outpaint', outpaint_by: '25% 0%' } } });
    // 800x600 placed at (200, 0) on 1200x600; the edge: the row of the largest step of the green channel
    const edgeRow = (x: number) => {
      let best = 0;
      let row = 0;
      for (let y = 1; y < image.height; y += 1) {
        const step = Math.abs(
          image.data[(y * image.width + x) * image.channels + 1] -
            image.data[((y - 1) * image.width + x) * image.channels + 1],
        );
        if (step > best) {
          best = step;
          row = y;
        }
      }
      return row;
    };
    const original = edgeRow(205);
    expect(edgeRow(995)).toBe(original);
    const off: number[] = [];
    for (let x = 0; x < 200; x += 1) off.push(Math.abs(edgeRow(x) - original), Math.abs(edgeRow(1000 + x) - original));
    expect(Math.max(...off), `edge at row ${original}`).toBeLessThanOrEqual(2);
  });

  it('runs in an asynchronous task too', async () => {
    const res = await call(app.url, 'POST', '/v1/image/edit/async', {
      key: app.adminKey,
      body: {
        input: images.url('/photo.png'),
        operations: { resizing: { fit: { type: 'outpaint', outpaint_by: '10% 5%' } } },
        output: { format: 'jpeg' },
      },
    });
    expect(res.status, res.text).toBe(200);
    const task = await waitForTask(app.url, app.adminKey, `/v1/image/edit/async/${res.body.data.id}`);
    expect(task.status, JSON.stringify(task)).toBe('DONE');
    expect(task.result.output_object).toMatchObject({ width: 480, height: 330, format: 'jpeg' });
  });
});

describe('style_transfer', () => {
  /** Mean colour of an image. */
  function mean(image: Awaited<ReturnType<typeof rawOf>>): number[] {
    const sums = [0, 0, 0];
    for (let i = 0; i < image.data.length; i += image.channels)
      for (let c = 0; c < 3; c += 1) sums[c] += image.data[i + c];
    return sums.map((sum) => sum / (image.width * image.height));
  }
  const distance = (a: number[], b: number[]) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);

  it('moves the colour statistics towards the reference in proportion to style_strength', async () => {
    const reference = mean(await rawOf(await blueReference()));
    const original = mean(await rawOf(photo));
    const distances: number[] = [];
    for (const strength of [0, 0.5, 1]) {
      const { data, image } = await edited('/photo.png', {
        generative: { style_transfer: { style_reference_image: images.url('/blue.png'), style_strength: strength } },
      });
      expect(data.output).toMatchObject({ width: 400, height: 300 });
      distances.push(distance(mean(image), reference));
    }
    const before = distance(original, reference);
    expect(distances[0]).toBeCloseTo(before, 0);
    expect(distances[1]).toBeLessThan(before * 0.75);
    expect(distances[2]).toBeLessThan(distances[1] * 0.75);
  });

  it("restyles the mug sample's wall and table but not the mug, with no ring of the old colours around it", async () => {
    const { image } = await edited('/mug.jpg', {
      generative: { style_transfer: { style_reference_image: images.url('/blue.png'), style_strength: 1 } },
    });
    const original = await rawOf(readFileSync(join(SAMPLES, 'mug.jpg')));
    // where the mug is: the service's own cut-out; its rim (within about 8 px) and what lies farther out
    const cut = await editImage(app, {
      input: images.url('/mug.jpg'),
      operations: { background: { remove: true, color: 'transparent' } },
      output: { format: 'png' },
    });
    expect(cut.status, cut.text).toBe(200);
    const png = await fetchResult(app, cut.body.data.output.tmp_url);
    const alpha = await sharp(png).ensureAlpha().extractChannel(3).raw().toBuffer();
    const near = await sharp(png).ensureAlpha().extractChannel(3).blur(4).threshold(1).raw().toBuffer();
    const far = await sharp(png).ensureAlpha().extractChannel(3).blur(12).threshold(1).raw().toBuffer();
    const means = (inside: (i: number) => boolean) => {
      const sums = [0, 0, 0, 0, 0, 0];
      let n = 0;
      for (let i = 0; i < alpha.length; i += 1) {
        if (!inside(i)) continue;
        for (let c = 0; c < 3; c += 1) {
          sums[c] += original.data[i * original.channels + c];
          sums[3 + c] += image.data[i * image.channels + c];
        }
        n += 1;
      }
      return { before: sums.slice(0, 3).map((v) => v / n), after: sums.slice(3).map((v) => v / n), n };
    };
    const mug = means((i) => alpha[i] === 255);
    const ring = means((i) => alpha[i] === 0 && near[i] !== 0);
    const scene = means((i) => far[i] === 0);
    expect(Math.min(mug.n, ring.n, scene.n)).toBeGreaterThan(500);
    const moved = (region: typeof mug) => distance(region.before, region.after);
    expect(moved(scene), 'the wall and table move towards the blue reference').toBeGreaterThan(25);
    expect(moved(mug), 'the mug keeps its colour').toBeLessThan(6);
    expect(moved(ring), 'the ring around the mug moves like the rest').toBeGreaterThan(0.6 * moved(scene));
  });

  it('restyles from a prompt alone, and keeps the composition', async () => {
    const { image } = await edited('/photo.png', {
      generative: { style_transfer: { prompt: 'cool blue tones', style_strength: 1 } },
    });
    const [r, , b] = mean(image);
    const [r0, , b0] = mean(await rawOf(photo));
    expect(b - r).toBeGreaterThan(b0 - r0 + 10);
  });
});
