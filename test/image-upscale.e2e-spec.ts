/**
 * Upscale and polish over HTTP, on the real super-resolution networks (ESRGAN slim and medium from UpscalerJS,
 * libs/vision), judged by what a client gets back: the exact size asked for, and fidelity. Each fixture is
 * downscaled 2x (Lanczos), sent, enlarged back by the service, and compared with the original (PSNR and SSIM,
 * test/helpers/image-metrics.ts) next to a plain Lanczos enlargement of the same small image: every mode must be
 * closer to the original than Lanczos. Fixtures: public-domain and CC0 photo crops (test/fixtures/photos,
 * LICENSES.md) and crops of the service's own drawn samples (libs/storage/samples).
 */
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editImage, fetchResult } from './helpers/edit-client';
import { call } from './helpers/http';
import { psnr, ssim, type Pixels } from './helpers/image-metrics';
import { startImageServer, type ImageServer } from './helpers/image-server';
import type { RunningProcess } from './helpers/process';
import { startWorkerFor, waitForTask } from './helpers/tasks';
import { startTestApp, type TestApp } from './helpers/test-app';

const PHOTOS = join(__dirname, 'fixtures/photos');
const SAMPLES = join(__dirname, '../libs/storage/samples');
type Crop = { left: number; top: number; width: number; height: number };

/** Each fixture: its file and crop (the photos are crops already). */
const FIXTURES: Record<string, { file: string; crop?: Crop }> = {
  astronaut: { file: join(PHOTOS, 'astronaut.png') },
  coffee: { file: join(PHOTOS, 'coffee.png') },
  chelsea: { file: join(PHOTOS, 'chelsea.png') },
  rocket: { file: join(PHOTOS, 'rocket.png') },
  text: { file: join(PHOTOS, 'text.png') },
  mug: { file: join(SAMPLES, 'mug.jpg'), crop: { left: 200, top: 150, width: 240, height: 240 } },
  plant: { file: join(SAMPLES, 'plant.jpg'), crop: { left: 180, top: 180, width: 240, height: 240 } },
};

/** The modes and the fixtures of the kind of image each is for (the contract's descriptions). */
const MODES: [mode: string, fixtures: string[]][] = [
  ['photo', ['chelsea', 'rocket']],
  ['faces', ['astronaut']],
  ['smart_enhance', ['coffee', 'mug']],
  ['digital_art', ['plant', 'mug']],
  ['smart_resize', ['text', 'chelsea']],
];

let app: TestApp;
let images: ImageServer;
let worker: RunningProcess | undefined;
const originals = new Map<string, Pixels>();
const lanczos = new Map<string, Pixels>();

async function raw(image: sharp.Sharp): Promise<Pixels> {
  const { data, info } = await image.raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: info.channels };
}

beforeAll(async () => {
  images = await startImageServer();
  app = await startTestApp({ FETCH_ALLOW_HOSTS: '127.0.0.1' });
  worker = await startWorkerFor(app);
  for (const [name, { file, crop }] of Object.entries(FIXTURES)) {
    let source = sharp(file).removeAlpha().toColourspace('srgb');
    if (crop) source = source.extract(crop);
    const original = await raw(source);
    const { width, height } = original;
    const small = await sharp(original.data as Buffer, { raw: { width, height, channels: 3 } })
      .resize(width / 2, height / 2, { kernel: 'lanczos3' })
      .png()
      .toBuffer();
    images.put(`/${name}.png`, small);
    originals.set(name, original);
    lanczos.set(name, await raw(sharp(small).resize(width, height, { kernel: 'lanczos3', fit: 'fill' })));
  }
}, 60_000);

afterAll(async () => {
  await worker?.stop();
  await app?.close();
  await images?.stop();
});

async function edited(input: string, operations: unknown): Promise<{ png: Buffer; output: Record<string, unknown> }> {
  const res = await editImage(app, { input: images.url(input), operations, output: { format: 'png' } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { png: await fetchResult(app, res.body.data.output.tmp_url), output: res.body.data.output };
}

describe('restorations.upscale on the real super-resolution networks', () => {
  it.each(MODES)(
    '%s: twice the size without a size asked, closer to the original than Lanczos (PSNR and SSIM)',
    { timeout: 120_000 },
    async (mode, fixtures) => {
      for (const name of fixtures) {
        const original = originals.get(name)!;
        const { png, output } = await edited(`/${name}.png`, { restorations: { upscale: mode } });
        expect(output).toMatchObject({ width: original.width, height: original.height });
        const result = await raw(sharp(png).removeAlpha());
        expect(result).toMatchObject({ width: original.width, height: original.height, channels: 3 });
        const figures = {
          model: [psnr(result, original), ssim(result, original)],
          lanczos: [psnr(lanczos.get(name)!, original), ssim(lanczos.get(name)!, original)],
        };
        console.info(`upscale ${mode} ${name} 2x: PSNR / SSIM ${JSON.stringify(figures)}`);
        expect(figures.model[0], `${name} PSNR`).toBeGreaterThan(figures.lanczos[0]);
        expect(figures.model[1], `${name} SSIM`).toBeGreaterThan(figures.lanczos[1]);
      }
    },
  );

  it.each([
    // rule 2: a crop with one side keeps the other side; enlarged to cover 250 px wide, then cut
    ['photo', { width: 250 }, [250, 120]],
    ['faces', { width: 300, height: 200 }, [300, 200]],
    ['digital_art', { width: '310%' }, [372, 372]],
    ['smart_enhance', { height: 500, fit: 'bounds' }, [500, 500]],
    ['smart_resize', { width: 100, fit: 'bounds' }, [100, 100]],
  ])('%s with resizing %j: exactly the asked size', { timeout: 120_000 }, async (mode, resizing, size) => {
    const { png, output } = await edited('/coffee.png', { restorations: { upscale: mode }, resizing });
    expect([output.width, output.height]).toEqual(size);
    const { width, height } = await sharp(png).metadata();
    expect([width, height]).toEqual(size);
  });

  it('keeps the alpha channel of a transparent image (enlarged beside the colour)', { timeout: 120_000 }, async () => {
    const bottle = await sharp(join(SAMPLES, 'bottle.png')).resize(160, 240).png().toBuffer();
    images.put('/bottle.png', bottle);
    const { png } = await edited('/bottle.png', { restorations: { upscale: 'digital_art' } });
    const result = await raw(sharp(png));
    expect(result).toMatchObject({ width: 320, height: 480, channels: 4 });
    const alpha = await raw(sharp(png).extractChannel(3));
    const expected = await raw(sharp(bottle).extractChannel(3).resize(320, 480, { kernel: 'lanczos3' }));
    expect(psnr(alpha, expected)).toBeGreaterThan(40);
  });

  it('runs in an asynchronous task too (the same executor)', { timeout: 120_000 }, async () => {
    const res = await call(app.url, 'POST', '/v1/image/edit/async', {
      key: app.adminKey,
      body: { input: images.url('/rocket.png'), operations: { restorations: { upscale: 'photo' } } },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const task = await waitForTask(app.url, app.adminKey, `/v1/image/edit/async/${res.body.data.id}`, 100_000);
    expect(task.status, JSON.stringify(task.errors)).toBe('DONE');
    const png = await fetchResult(app, task.result.output_object.tmp_url);
    const result = await raw(sharp(png).removeAlpha());
    expect(result).toMatchObject({ width: 240, height: 240 });
    expect(psnr(result, originals.get('rocket')!)).toBeGreaterThan(
      psnr(lanczos.get('rocket')!, originals.get('rocket')!),
    );
  });
});

describe('/health/ready after upscales', () => {
  it('reports the super-resolution networks loaded (verified at start, loaded at their first use)', async () => {
    const ready = await call(app.url, 'GET', '/health/ready');
    expect(ready.status).toBe(200);
    expect(ready.body.data.models).toMatchObject({ 'super-resolution': 'loaded' });
  });
});

describe('restorations.polish on the real super-resolution network', () => {
  it(
    'keeps the size, redraws the pixels, and stays as faithful as the soft image (within 0.25 dB PSNR)',
    { timeout: 120_000 },
    async () => {
      for (const name of ['chelsea', 'mug', 'text']) {
        // a soft image: the Lanczos enlargement of the small one, at the original's size
        const soft = lanczos.get(name)!;
        const { width, height } = soft;
        images.put(
          `/soft-${name}.png`,
          await sharp(soft.data as Buffer, { raw: { width, height, channels: 3 } })
            .png()
            .toBuffer(),
        );
        const { png, output } = await edited(`/soft-${name}.png`, { restorations: { polish: true } });
        expect(output).toMatchObject({ width, height });
        const polished = await raw(sharp(png).removeAlpha());
        expect(polished).toMatchObject({ width, height, channels: 3 });
        const original = originals.get(name)!;
        const figures = { polished: psnr(polished, original), soft: psnr(soft, original) };
        console.info(`polish ${name}: PSNR against the original ${JSON.stringify(figures)}`);
        expect(Buffer.from(polished.data as Uint8Array).equals(Buffer.from(soft.data as Uint8Array))).toBe(false);
        expect(figures.polished).toBeGreaterThan(figures.soft - 0.25);
      }
    },
  );
});
