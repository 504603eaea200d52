import { resolve } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@app/common';
import type { RawImage } from '@app/image-pipeline';
import { psnr, ssim } from '../../../../test/helpers/image-metrics';
import { ESRGAN_SCALES, SHIPPED_ESRGAN, shippedNetworks } from './esrgan-models';
import { EsrganSuperResolver } from './super-resolution.model';

/** The real ESRGAN networks on TF.js WASM (no mocks), on a public-domain photo crop (test/fixtures/photos). */
const PHOTO = resolve(__dirname, '../../../../test/fixtures/photos/chelsea.png');

async function rgb(width: number, height: number, source = PHOTO): Promise<RawImage> {
  const data = await sharp(source)
    .resize(width, height, { kernel: 'lanczos3', fit: 'fill' })
    .removeAlpha()
    .raw()
    .toBuffer();
  return { data: new Uint8Array(data), width, height, channels: 3 };
}

const pixels = (image: RawImage) => ({ ...image, data: image.data });

describe('EsrganSuperResolver (the real ESRGAN networks)', () => {
  const resolver = EsrganSuperResolver.fromConfig(loadConfig({}));
  afterAll(async () => {
    await resolver.runner.close();
  });

  it('verifies the twelve shipped files (graph and weights of slim and medium at 2x, 3x, 4x) by SHA-256', async () => {
    const { files } = shippedNetworks();
    expect(files).toHaveLength(12);
    for (const file of files)
      expect(file.path).toMatch(/node_modules\/@upscalerjs\/esrgan-(slim|medium)\/models\/x[234]\//);
    expect(files.map((file) => file.sha256)).toEqual(
      (['slim', 'medium'] as const).flatMap((size) => ESRGAN_SCALES.flatMap((scale) => SHIPPED_ESRGAN[size][scale])),
    );
    expect(await resolver.runner.verify()).toBe(true);
    expect(resolver.runner.state).toBe('not_loaded');
  });

  it.each([
    [1.2, 2],
    [2, 2],
    [2.5, 3],
    [3, 3],
    [3.5, 4],
    [6, 4],
  ])('enlarges a factor of %s with the %ix network', (factor, scale) => {
    expect(resolver.scaleFor('photo', factor)).toBe(scale);
  });

  it(
    '2x: exactly twice the size, 8-bit values that use the range, closer to the original than Lanczos',
    { timeout: 120_000 },
    async () => {
      const original = await rgb(120, 120);
      const small = await rgb(60, 60);
      for (const mode of ['photo', 'faces'] as const) {
        const enlarged = await resolver.upscale({ ...small, data: small.data.slice() }, mode, 2);
        expect(enlarged).toMatchObject({ width: 120, height: 120, channels: 3, scale: 2 });
        expect(enlarged.data).toBeInstanceOf(Uint8Array);
        expect(enlarged.data.length).toBe(120 * 120 * 3);
        expect(Math.max(...enlarged.data) - Math.min(...enlarged.data)).toBeGreaterThan(150);
        const lanczos = await sharp(Buffer.from(small.data), { raw: { width: 60, height: 60, channels: 3 } })
          .resize(120, 120, { kernel: 'lanczos3', fit: 'fill' })
          .raw()
          .toBuffer();
        const interpolated = { data: lanczos, width: 120, height: 120, channels: 3 };
        expect(psnr(pixels(enlarged), original)).toBeGreaterThan(psnr(interpolated, original));
        expect(ssim(pixels(enlarged), original)).toBeGreaterThan(ssim(interpolated, original));
      }
      expect(resolver.runner.state).toBe('loaded');
    },
  );

  it('3x and 4x: three and four times the size', { timeout: 120_000 }, async () => {
    const small = await rgb(30, 20);
    await expect(resolver.upscale(small, 'digital_art', 2.6)).resolves.toMatchObject({
      width: 90,
      height: 60,
      scale: 3,
    });
    const again = await rgb(30, 20);
    await expect(resolver.upscale(again, 'smart_resize', 7)).resolves.toMatchObject({
      width: 120,
      height: 80,
      scale: 4,
    });
  });

  it.each(['photo', 'smart_enhance'] as const)(
    '%s: tiles meet without a seam: 32-px tiles give the one-shot result (each value within 1)',
    { timeout: 120_000 },
    async (mode) => {
      const image = await rgb(100, 70);
      const whole = await new EsrganSuperResolver(resolver.runner, 1024).upscale(
        { ...image, data: image.data.slice() },
        mode,
        2,
      );
      const tiled = await new EsrganSuperResolver(resolver.runner, 32).upscale(
        { ...image, data: image.data.slice() },
        mode,
        2,
      );
      expect(tiled).toMatchObject({ width: 200, height: 140 });
      let largest = 0;
      for (let i = 0; i < whole.data.length; i++) largest = Math.max(largest, Math.abs(whole.data[i] - tiled.data[i]));
      expect(largest).toBeLessThanOrEqual(1);
    },
  );

  it('keeps the event loop free while it enlarges (p99 delay < 50 ms)', { timeout: 120_000 }, async () => {
    const image = await rgb(160, 120);
    const delay = monitorEventLoopDelay({ resolution: 5 });
    delay.enable();
    await resolver.upscale(image, 'photo', 2);
    delay.disable();
    expect(delay.percentile(99) / 1e6).toBeLessThan(50);
  });

  it('runs each mode on its network, but slim above SUPER_RESOLUTION_MEDIUM_MAX_PIXELS', () => {
    const modes = ['photo', 'smart_enhance', 'digital_art', 'faces', 'smart_resize', 'polish'] as const;
    const small = ['slim', 'medium', 'medium', 'medium', 'slim', 'slim'];
    expect(modes.map((mode) => resolver.sizeFor(mode, 100_000))).toEqual(small);
    expect(modes.map((mode) => resolver.sizeFor(mode, 100_001))).toEqual(Array(6).fill('slim'));
    const always = EsrganSuperResolver.fromConfig(loadConfig({ SUPER_RESOLUTION_MEDIUM_MAX_PIXELS: '1000000000' }));
    expect(modes.map((mode) => always.sizeFor(mode, 50_000_000))).toEqual(small);
    const never = EsrganSuperResolver.fromConfig(loadConfig({ SUPER_RESOLUTION_MEDIUM_MAX_PIXELS: '0' }));
    expect(modes.map((mode) => never.sizeFor(mode, 1))).toEqual(Array(6).fill('slim'));
  });

  it('refuses pixels that are not 3-channel', async () => {
    const grey = { data: new Uint8Array(16), width: 4, height: 4, channels: 1 as const };
    await expect(resolver.upscale(grey, 'photo', 2)).rejects.toThrow(/3-channel/);
  });
});
