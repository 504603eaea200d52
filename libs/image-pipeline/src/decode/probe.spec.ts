import type { ImageMediaType } from '@app/common/media/media-type';
import { describe, expect, it } from 'vitest';
import {
  alphaPng,
  bombPng,
  cmykJpeg,
  greyJpeg,
  heicDeclaring,
  heicFixture,
  png16,
  quadrantsImage,
  type QuadrantFormat,
  withHeifRotation,
  withOrientation,
} from '../../../../test/fixtures/images';
import {
  assertPixelLimit,
  CorruptImageError,
  PixelLimitError,
  probeImage,
  UnsupportedImageError,
  type ImageProbe,
} from './probe';

/** Replaces every occurrence of one 4-byte brand by another inside the `ftyp` box (same length, same layout). */
function replaceBrand(bytes: Buffer, from: string, to: string): Buffer {
  const out = Buffer.from(bytes);
  const end = out.readUInt32BE(0);
  for (let at = 8; at + 4 <= end; at += 4) if (out.toString('latin1', at, at + 4) === from) out.write(to, at, 'latin1');
  return out;
}

const NATIVE: QuadrantFormat[] = ['jpeg', 'png', 'webp', 'avif', 'tiff', 'gif'];

describe('probeImage', () => {
  it.each(NATIVE)('reads a %s header: format, stored and displayed size, upright', async (format) => {
    const probe = await probeImage(await quadrantsImage({ format }));
    // libvips always decodes GIF with an alpha channel (a frame may leave pixels transparent).
    const channels = format === 'gif' ? 4 : 3;
    expect(probe).toMatchObject({
      format,
      width: 64,
      height: 48,
      orientation: 1,
      displayWidth: 64,
      displayHeight: 48,
      channels,
      hasAlpha: format === 'gif',
      space: 'srgb',
    });
  });

  it('counts the frames of a GIF (the decoder reads the first) and reports its alpha as libvips decodes it', async () => {
    const probe = await probeImage(await quadrantsImage({ format: 'gif' }));
    expect(probe).toMatchObject({ pages: 2, channels: 4, hasAlpha: true });
  });

  it.each([
    ['8-bit palette', { bmpBits: 8 }, 3, false],
    ['24-bit', { bmpBits: 24 }, 3, false],
    ['24-bit top-down', { bmpBits: 24, bmpTopDown: true }, 3, false],
    ['32-bit BGRA', { alpha: true }, 4, true],
    ['32-bit BGRA top-down', { alpha: true, bmpTopDown: true }, 4, true],
  ] as const)('reads a %s BMP header (positive height)', async (_, options, channels, hasAlpha) => {
    const probe = await probeImage(await quadrantsImage({ format: 'bmp', ...options }));
    expect(probe).toMatchObject({ format: 'bmp', width: 64, height: 48, orientation: 1, channels, hasAlpha });
    expect([probe.displayWidth, probe.displayHeight]).toEqual([64, 48]);
  });

  it('reads a HEIC header without an HEVC decoder (sharp parses the boxes) and names the primary image', async () => {
    const probe = await probeImage(heicFixture());
    expect(probe).toMatchObject({
      format: 'heic',
      width: 64,
      height: 48,
      orientation: 1,
      channels: 3,
      hasAlpha: false,
    });
    expect(probe.primaryImage).toBe(0);
  });

  it('gives a rotated HEIC (irot) its displayed size, the rotation being applied by the decoder', async () => {
    const probe = await probeImage(withHeifRotation(heicFixture(), 3));
    expect(probe).toMatchObject({ format: 'heic', width: 48, height: 64, orientation: 1 });
    expect([probe.displayWidth, probe.displayHeight]).toEqual([48, 64]);
  });

  it.each([
    [6, 48, 64],
    [3, 64, 48],
    [8, 48, 64],
    [2, 64, 48],
  ])(
    'reads EXIF orientation %i: stored 64 x 48, displayed %i x %i',
    async (orientation, displayWidth, displayHeight) => {
      const probe = await probeImage(await withOrientation(await quadrantsImage({ format: 'jpeg' }), orientation));
      expect(probe).toMatchObject({ width: 64, height: 48, orientation, displayWidth, displayHeight });
    },
  );

  it('reports CMYK, grey, alpha and 16-bit inputs as they are', async () => {
    const cmyk = await probeImage(await cmykJpeg());
    expect(cmyk).toMatchObject({ format: 'jpeg', space: 'cmyk', channels: 4 });
    expect(cmyk.icc?.length).toBeGreaterThan(0);
    expect((await probeImage(await cmykJpeg({ profile: false }))).icc).toBeUndefined();
    expect(await probeImage(await greyJpeg())).toMatchObject({ space: 'b-w', channels: 1, hasAlpha: false });
    expect(await probeImage(await alphaPng())).toMatchObject({ format: 'png', channels: 4, hasAlpha: true });
    expect(await probeImage(await png16())).toMatchObject({ format: 'png', space: 'rgb16', channels: 3 });
  });
});

describe('the format comes from the bytes', () => {
  it('never takes the bytes of one format for another', async () => {
    const formats: QuadrantFormat[] = [...NATIVE, 'bmp'];
    const found: ImageMediaType[] = [];
    for (const format of formats) found.push((await probeImage(await quadrantsImage({ format }))).format);
    found.push((await probeImage(heicFixture())).format);
    expect(found).toEqual([...formats, 'heic']);
  });

  it('tells AVIF from HEIC by the codec when the brands are only the generic HEIF ones', async () => {
    const avif = replaceBrand(await quadrantsImage({ format: 'avif' }), 'avif', 'mif1');
    expect(avif.subarray(0, 64).includes('avif')).toBe(false);
    expect((await probeImage(avif)).format).toBe('avif');
    // And an HEVC file that claims to be AVIF is still HEIC (it needs the HEIC decoder).
    expect((await probeImage(replaceBrand(heicFixture(), 'heic', 'avif'))).format).toBe('heic');
  });
});

describe('refusing input', () => {
  it.each([
    ['random bytes', Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 251))],
    ['an empty buffer', Buffer.alloc(0)],
    ['text', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>')],
  ])('refuses %s as unsupported', async (_, bytes) => {
    await expect(probeImage(bytes)).rejects.toThrow(UnsupportedImageError);
  });

  it('refuses BMP variants it does not decode as unsupported, naming them', async () => {
    const rle = await quadrantsImage({ format: 'bmp', bmpBits: 8 });
    rle.writeUInt32LE(1, 30); // BI_RLE8
    await expect(probeImage(rle)).rejects.toThrow(/RLE8/);
    await expect(probeImage(rle)).rejects.toThrow(UnsupportedImageError);
    const sixteen = await quadrantsImage({ format: 'bmp' });
    sixteen.writeUInt16LE(16, 28);
    await expect(probeImage(sixteen)).rejects.toThrow(UnsupportedImageError);
  });

  it.each([
    ['a JPEG cut inside its header', async () => (await quadrantsImage({ format: 'jpeg' })).subarray(0, 40)],
    ['a PNG cut inside IHDR', async () => (await quadrantsImage({ format: 'png' })).subarray(0, 20)],
    ['a TIFF without its directory', async () => (await quadrantsImage({ format: 'tiff' })).subarray(0, 200)],
    ['a HEIC cut short', async () => heicFixture().subarray(0, 300)],
    ['a BMP cut inside its header', async () => (await quadrantsImage({ format: 'bmp' })).subarray(0, 30)],
    ['a BMP declaring no width', async () => (await quadrantsImage({ format: 'bmp' })).fill(0, 18, 22)],
  ])('refuses %s as corrupt', async (_, make) => {
    await expect(probeImage(await make())).rejects.toThrow(CorruptImageError);
  });
});

describe('decompression bombs', () => {
  it('probes a PNG declaring 100000 x 100000 from its header alone, then refuses it', async () => {
    const bomb = bombPng(100_000, 100_000);
    expect(bomb.length).toBeLessThan(1024);
    const rssBefore = process.memoryUsage().rss;
    const started = performance.now();
    const probe = await probeImage(bomb);
    const elapsed = performance.now() - started;
    const grew = process.memoryUsage().rss - rssBefore;
    expect(probe).toMatchObject({ format: 'png', width: 100_000, height: 100_000 });
    expect(elapsed).toBeLessThan(500);
    expect(grew).toBeLessThan(50 * 1024 * 1024);
    const refusal = catchError(() => assertPixelLimit(probe, 100_000_000));
    expect(refusal).toBeInstanceOf(PixelLimitError);
    expect(refusal).toMatchObject({ width: 100_000, height: 100_000, limit: 100_000_000 });
  });

  it('probes a HEIC declaring 100000 x 100000 from its boxes, then refuses it', async () => {
    const probe = await probeImage(heicDeclaring(100_000, 100_000));
    expect(probe).toMatchObject({ format: 'heic', width: 100_000, height: 100_000 });
    expect(() => assertPixelLimit(probe, 100_000_000)).toThrow(PixelLimitError);
  });
});

describe('assertPixelLimit', () => {
  const probe: Pick<ImageProbe, 'width' | 'height'> = { width: 4000, height: 3000 };

  it('allows exactly the limit and refuses one pixel more', () => {
    expect(() => assertPixelLimit(probe, 12_000_000)).not.toThrow();
    expect(() => assertPixelLimit(probe, 11_999_999)).toThrow(/4000 x 3000 pixels exceeds the limit of 11999999/);
  });
});

function catchError(run: () => void): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
}
