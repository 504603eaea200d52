import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import {
  heicDeclaring,
  heicFixture,
  QUADRANT_ALPHA,
  QUADRANT_COLOURS,
  quadrantsImage,
  type Quadrant,
  type QuadrantsOptions,
  withHeifRotation,
  withJpegSize,
  withOrientation,
} from '../../../../test/fixtures/images';
import { KERNELS, type KernelName, type KernelPayload, type KernelResult } from '../kernels';
import { decodeBmpKernel, decodeHeicKernel } from '../kernels/decode.kernel';
import type { PixelPool } from '../workers/pixel-pool';
import { decodeError, openInput, withJpegWarningsTolerated } from './decode-input';
import { CorruptImageError, PixelLimitError, probeImage, UnsupportedImageError } from './probe';

/** What PixelPool.run does on a worker thread (pixel.worker.ts), run on this one: the same kernel registry. */
const pool: Pick<PixelPool, 'run'> = {
  async run<K extends KernelName>(name: K, payload: KernelPayload<K>): Promise<KernelResult<K>> {
    const kernel = KERNELS[name] as unknown as (input: KernelPayload<K>) => Promise<KernelResult<K>>;
    return kernel(payload);
  },
};

const MAX_PIXELS = 50_000_000;

interface Decoded {
  data: Buffer;
  width: number;
  height: number;
  channels: number;
}

/** The image as displayed, the way the pipeline opens it: probe, openInput, sharp with autoOrient. */
async function display(bytes: Buffer, maxPixels = MAX_PIXELS): Promise<Decoded> {
  const probe = await probeImage(bytes);
  return withJpegWarningsTolerated(probe, async (tolerate) => {
    const { input, options } = await openInput(bytes, probe, pool, maxPixels, tolerate);
    const { data, info } = await sharp(input, options).autoOrient().raw().toBuffer({ resolveWithObject: true });
    return { data, width: info.width, height: info.height, channels: info.channels };
  });
}

function pixel(image: Decoded, x: number, y: number): number[] {
  const at = (y * image.width + x) * image.channels;
  return [...image.data.subarray(at, at + image.channels)];
}

/** The centre of each quadrant of a width x height image, as [x, y]. */
function centres(width: number, height: number): Record<Quadrant, [number, number]> {
  const [left, right, top, bottom] = [width / 4, (3 * width) / 4, height / 4, (3 * height) / 4].map(Math.floor);
  return { topLeft: [left, top], topRight: [right, top], bottomLeft: [left, bottom], bottomRight: [right, bottom] };
}

/** Asserts the colour at each displayed quadrant centre: `layout` names which stored quadrant shows there. */
function expectQuadrants(image: Decoded, tolerance: number, layout: Record<Quadrant, Quadrant>): void {
  for (const [place, [x, y]] of Object.entries(centres(image.width, image.height)) as [Quadrant, [number, number]][]) {
    const expected = QUADRANT_COLOURS[layout[place]];
    const actual = pixel(image, x, y).slice(0, 3);
    actual.forEach((value, i) =>
      expect(Math.abs(value - expected[i]), `${place} ${actual} vs ${expected}`).toBeLessThanOrEqual(tolerance),
    );
  }
}

const UPRIGHT: Record<Quadrant, Quadrant> = {
  topLeft: 'topLeft',
  topRight: 'topRight',
  bottomLeft: 'bottomLeft',
  bottomRight: 'bottomRight',
};
/** EXIF 6 / irot 270: stored pixels turned a quarter clockwise for display. */
const QUARTER_CLOCKWISE: Record<Quadrant, Quadrant> = {
  topLeft: 'bottomLeft',
  topRight: 'topLeft',
  bottomLeft: 'bottomRight',
  bottomRight: 'topRight',
};
const HALF_TURN: Record<Quadrant, Quadrant> = {
  topLeft: 'bottomRight',
  topRight: 'bottomLeft',
  bottomLeft: 'topRight',
  bottomRight: 'topLeft',
};

describe('openInput: every input type decodes to the displayed image', () => {
  it.each([
    ['jpeg', { format: 'jpeg' }, 8],
    ['png', { format: 'png' }, 0],
    ['webp', { format: 'webp' }, 12],
    ['avif', { format: 'avif' }, 12],
    ['tiff', { format: 'tiff' }, 0],
    ['gif (first frame)', { format: 'gif' }, 0],
    ['bmp 8-bit palette', { format: 'bmp', bmpBits: 8 }, 0],
    ['bmp 24-bit', { format: 'bmp', bmpBits: 24 }, 0],
    ['bmp 24-bit top-down', { format: 'bmp', bmpBits: 24, bmpTopDown: true }, 0],
  ] as [string, QuadrantsOptions, number][])('%s', async (_, options, tolerance) => {
    const image = await display(await quadrantsImage(options));
    expect([image.width, image.height]).toEqual([64, 48]);
    expectQuadrants(image, tolerance, UPRIGHT);
  });

  it('heic (decoded by heic-decode on the pool, opaque so RGB)', async () => {
    const image = await display(heicFixture());
    expect([image.width, image.height, image.channels]).toEqual([64, 48, 3]);
    expectQuadrants(image, 8, UPRIGHT);
  });

  it.each([false, true])('bmp 32-bit with alpha (top-down: %s) keeps the alpha channel', async (bmpTopDown) => {
    const image = await display(await quadrantsImage({ format: 'bmp', alpha: true, bmpTopDown }));
    expect(image.channels).toBe(4);
    expectQuadrants(image, 0, UPRIGHT);
    const [x, y] = centres(64, 48).bottomRight;
    expect(pixel(image, x, y)[3]).toBe(QUADRANT_ALPHA);
    expect(pixel(image, 2, 2)[3]).toBe(255);
  });

  it('bmp 32-bit whose alpha bytes are all 0 is opaque (writers that ignore alpha leave them 0)', async () => {
    const bmp = await quadrantsImage({ format: 'bmp', bmpBits: 32 });
    for (let at = bmp.readUInt32LE(10) + 3; at < bmp.length; at += 4) bmp[at] = 0;
    const image = await display(bmp);
    expectQuadrants(image, 0, UPRIGHT);
    expect(pixel(image, 5, 5)[3]).toBe(255);
  });

  it('reads the first GIF frame only, whatever the second holds', async () => {
    const image = await display(await quadrantsImage({ format: 'gif' }));
    expect(image.height).toBe(48);
    expect(pixel(image, 2, 2).slice(0, 3)).toEqual([...QUADRANT_COLOURS.topLeft]);
  });

  it('decodes an HEVC file whose brands say AVIF with the HEIC decoder (the codec decides)', async () => {
    const heic = Buffer.from(heicFixture());
    heic.write('avif', 8, 'latin1');
    expectQuadrants(await display(heic), 8, UPRIGHT);
  });
});

describe('openInput: orientation', () => {
  it('applies EXIF orientation 6: 48 x 64, turned a quarter clockwise', async () => {
    const image = await display(await withOrientation(await quadrantsImage({ format: 'jpeg' }), 6));
    expect([image.width, image.height]).toEqual([48, 64]);
    expectQuadrants(image, 12, QUARTER_CLOCKWISE);
  });

  it('applies EXIF orientation 3: 64 x 48, turned half way', async () => {
    const image = await display(await withOrientation(await quadrantsImage({ format: 'jpeg' }), 3));
    expect([image.width, image.height]).toEqual([64, 48]);
    expectQuadrants(image, 12, HALF_TURN);
  });

  it.each([
    [3, 48, 64, QUARTER_CLOCKWISE],
    [2, 64, 48, HALF_TURN],
  ] as const)('applies a HEIC irot of %i quarter turns anticlockwise', async (turns, width, height, layout) => {
    const image = await display(withHeifRotation(heicFixture(), turns));
    expect([image.width, image.height]).toEqual([width, height]);
    expectQuadrants(image, 8, layout);
  });
});

describe('openInput: options for the formats libvips reads', () => {
  it('limits pixels, fails on errors, reads sequentially and takes page 0 of a GIF or TIFF', async () => {
    const gif = await quadrantsImage({ format: 'gif' });
    const { input, options } = await openInput(gif, await probeImage(gif), pool, 1_000_000);
    expect(input).toBe(gif);
    expect(options).toEqual({ limitInputPixels: 1_000_000, failOn: 'error', sequentialRead: true, pages: 1, page: 0 });
  });

  it('leaves the caller its bytes: the pool gets a copy to move to the worker', async () => {
    const bmp = await quadrantsImage({ format: 'bmp' });
    const before = Buffer.from(bmp);
    const { input } = await openInput(bmp, await probeImage(bmp), pool, MAX_PIXELS);
    expect(bmp.equals(before)).toBe(true);
    expect(input.length).toBe(64 * 48 * 3);
  });

  it('decodes a JPEG whose only fault is a warning browsers ignore (extraneous bytes before a marker)', async () => {
    const jpeg = await quadrantsImage({ format: 'jpeg' });
    const dht = jpeg.indexOf(Buffer.from([0xff, 0xc4]));
    const image = await display(Buffer.concat([jpeg.subarray(0, dht), Buffer.from([1, 2, 3]), jpeg.subarray(dht)]));
    expectQuadrants(image, 8, UPRIGHT);
  });
});

describe('refusing input', () => {
  it('refuses an image over the limit before decoding, BMP and HEIC included', async () => {
    for (const bytes of [
      await quadrantsImage({ format: 'png' }),
      await quadrantsImage({ format: 'bmp' }),
      heicFixture(),
    ]) {
      await expect(openInput(bytes, await probeImage(bytes), pool, 64 * 48 - 1)).rejects.toThrow(PixelLimitError);
    }
    const bomb = heicDeclaring(100_000, 100_000);
    await expect(openInput(bomb, await probeImage(bomb), pool, MAX_PIXELS)).rejects.toThrow(PixelLimitError);
  });

  it.each([
    ['jpeg', 0.6],
    ['png', 0.6],
    ['webp', 0.8],
    ['gif', 0.3],
  ] as const)('a truncated %s is corrupt (decodeError of the sharp failure)', async (format, keep) => {
    const whole = await quadrantsImage({ format, width: 256, height: 192 });
    const cut = whole.subarray(0, Math.floor(whole.length * keep));
    const failure = await display(cut).catch((error: unknown) => error);
    expect(decodeError(failure)).toBeInstanceOf(CorruptImageError);
  });

  it('a JPEG whose header declares more than its data holds (7000 x 7000 over 640 x 480) is corrupt', async () => {
    const jpeg = withJpegSize(await quadrantsImage({ format: 'jpeg', width: 640, height: 480 }), 7000, 7000);
    const probe = await probeImage(jpeg);
    const failure = await display(jpeg).catch((error: unknown) => error);
    const error = decodeError(failure, { probe, maxPixels: MAX_PIXELS });
    expect(error).toBeInstanceOf(CorruptImageError);
    expect((error as Error).message).toMatch(/truncated: its header declares 7000 x 7000/);
  });

  it('a BMP whose pixel rows are cut short is corrupt', async () => {
    const bmp = await quadrantsImage({ format: 'bmp' });
    const cut = bmp.subarray(0, bmp.length - 100);
    await expect(openInput(cut, await probeImage(cut), pool, MAX_PIXELS)).rejects.toThrow(CorruptImageError);
  });

  it('the decode kernels check the pixel limit themselves, from the header', async () => {
    const bmp = await quadrantsImage({ format: 'bmp' });
    expect(() => decodeBmpKernel({ bytes: bmp, maxPixels: 100 })).toThrow(/exceeds the limit of 100 pixels/);
    await expect(decodeHeicKernel({ bytes: heicFixture(), maxPixels: 100 })).rejects.toThrow(/exceeds the limit/);
  });
});

describe('decodeError', () => {
  it.each([
    ['Input buffer contains unsupported image format', UnsupportedImageError],
    ['VipsJpeg: premature end of JPEG image', CorruptImageError],
    ['Input buffer has corrupt header: webp: unable to parse image', CorruptImageError],
    ['vipspng: libpng read error', CorruptImageError],
    ['tiff2vips: Not enough data at scanline 138 (short 308 bytes)', CorruptImageError],
    ['gifload_buffer: Invalid frame data', CorruptImageError],
    ['source: bad seek to 1024\nsource: bad seek to 512', CorruptImageError],
  ])('maps "%s"', (message, kind) => {
    expect(decodeError(new Error(message))).toBeInstanceOf(kind);
  });

  it('maps the pixel limit to PixelLimitError with the size when told the probe and limit', () => {
    const error = decodeError(new Error('Input image exceeds pixel limit'), {
      probe: { width: 5000, height: 5000 },
      maxPixels: 1_000_000,
    });
    expect(error).toMatchObject({ width: 5000, height: 5000, limit: 1_000_000 });
    expect(error).toBeInstanceOf(PixelLimitError);
    // Over the limit while the header was not: the data disagrees with its header.
    expect(decodeError(new Error('Input image exceeds pixel limit'))).toBeInstanceOf(CorruptImageError);
  });

  it('passes its own classes and errors of ours through unchanged', () => {
    const corrupt = new CorruptImageError('x');
    const bug = new TypeError('Cannot read properties of undefined');
    expect(decodeError(corrupt)).toBe(corrupt);
    expect(decodeError(bug)).toBe(bug);
    expect(decodeError(new Error('Expected positive integer for width but received -1'))).not.toBeInstanceOf(
      CorruptImageError,
    );
  });
});
