/**
 * Every input type the interface lists is decoded, whatever the file is called: `data.input` describes it and
 * the output shows its pixels the way a viewer displays them (EXIF orientation, HEIF rotation, a GIF's first
 * frame). Damaged files and files declaring too many pixels are refused with the image error codes.
 * Black box, over real HTTP.
 */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  heicDeclaring,
  heicFixture,
  png16,
  QUADRANT_ALPHA,
  QUADRANT_COLOURS,
  quadrantsImage,
  withHeifRotation,
  withJpegSize,
  withOrientation,
  withPngSize,
  type Quadrant,
  type QuadrantFormat,
} from './fixtures/images';
import { fetchResult } from './helpers/edit-client';
import { call, type ApiResponse } from './helpers/http';
import { colourDistance, decode, pixelAt, quadrantCentres } from './helpers/image-bytes';
import { startImageServer, type ImageServer } from './helpers/image-server';
import { startTestApp, type TestApp } from './helpers/test-app';

/** MAX_INPUT_PIXELS of the app under test: 1 MP, so that an over-limit image stays small to make. */
const MAX_PIXELS = 1_000_000;

let app: TestApp;
let images: ImageServer;

beforeAll(async () => {
  images = await startImageServer();
  app = await startTestApp({ FETCH_ALLOW_HOSTS: '127.0.0.1', MAX_INPUT_PIXELS: String(MAX_PIXELS) });
});

afterAll(async () => {
  await app?.close();
  await images?.stop();
});

let served = 0;

/** Edits `bytes` served at `name` (a fresh path each time) into a png; the response. */
function editServed(bytes: Buffer, name = 'input', output: unknown = { format: 'png' }) {
  const path = `/${++served}/${name}`;
  images.put(path, bytes);
  return call(app.url, 'POST', '/v1/image/edit', { key: app.adminKey, body: { input: images.url(path), output } });
}

async function upload(
  file: Buffer,
  filename: string,
  data: unknown = { output: { format: 'png' } },
): Promise<Pick<ApiResponse, 'status' | 'body'>> {
  const form = new FormData();
  form.append('file', new Blob([file]), filename);
  form.append('data', JSON.stringify(data));
  const response = await fetch(`${app.url}/v1/image/edit/upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${app.adminKey}` },
    body: form,
  });
  return { status: response.status, body: await response.json() };
}

/** Each displayed quadrant's expected colour: the upright quadrants, or where a rotation put them. */
type Layout = Record<Quadrant, Quadrant>;
const UPRIGHT: Layout = {
  topLeft: 'topLeft',
  topRight: 'topRight',
  bottomLeft: 'bottomLeft',
  bottomRight: 'bottomRight',
};
const TURNED_180: Layout = {
  topLeft: 'bottomRight',
  topRight: 'bottomLeft',
  bottomLeft: 'topRight',
  bottomRight: 'topLeft',
};
/** Turned a quarter clockwise: the left column becomes the top row. */
const TURNED_CLOCKWISE: Layout = {
  topLeft: 'bottomLeft',
  topRight: 'topLeft',
  bottomLeft: 'bottomRight',
  bottomRight: 'topRight',
};
/** Turned a quarter anticlockwise: the right column becomes the top row. */
const TURNED_ANTICLOCKWISE: Layout = {
  topLeft: 'topRight',
  topRight: 'bottomRight',
  bottomLeft: 'topLeft',
  bottomRight: 'bottomLeft',
};

/**
 * Expects the png result of `response` to be width x height with each quadrant centre within `tolerance`
 * (0..255, per channel) of the colour `layout` puts there.
 */
async function expectQuadrants(
  response: Pick<ApiResponse, 'body'>,
  width: number,
  height: number,
  tolerance: number,
  layout = UPRIGHT,
) {
  expect(response.body.data.output).toMatchObject({ format: 'png', width, height });
  const image = await decode(await fetchResult(app, response.body.data.output.tmp_url));
  expect([image.width, image.height]).toEqual([width, height]);
  const centres = quadrantCentres(width, height);
  for (const quadrant of Object.keys(centres) as Quadrant[]) {
    const [x, y] = centres[quadrant];
    const expected = QUADRANT_COLOURS[layout[quadrant]];
    expect(colourDistance(pixelAt(image, x, y), expected), `${quadrant} at ${x},${y}`).toBeLessThanOrEqual(tolerance);
  }
  return image;
}

/** ImageInfo of a 64 x 48 input (0.0031 MP) of `format`. */
function info(format: string, ext: string, mime: string, width = 64, height = 48) {
  return { format, ext, mime, width, height, mps: Math.round((width * height) / 100) / 10_000 };
}

// Tolerances at the quadrant centres (0..255 per channel). Lossless codecs: exact. The 16-bit PNG: measured 2
// (pure blue comes back as 2,0,255 after the 16-to-8-bit sRGB transform). Lossy fixtures (quality 90, HEIC
// from heif-enc -q 90): measured at most 1; 4 leaves room for other codec builds, far below the 255 that
// separates the quadrant colours.
const EXACT = 0;
const SIXTEEN_BIT = 3;
const LOSSY = 4;

describe('every input type is decoded', () => {
  const cases: Array<[string, () => Promise<Buffer> | Buffer, ReturnType<typeof info>, number]> = [
    ['BMP 24-bit', () => quadrantsImage({ format: 'bmp', bmpBits: 24 }), info('bmp', 'bmp', 'image/bmp'), EXACT],
    [
      'BMP 24-bit top-down',
      () => quadrantsImage({ format: 'bmp', bmpTopDown: true }),
      info('bmp', 'bmp', 'image/bmp'),
      EXACT,
    ],
    ['BMP 32-bit', () => quadrantsImage({ format: 'bmp', bmpBits: 32 }), info('bmp', 'bmp', 'image/bmp'), EXACT],
    ['BMP 8-bit palette', () => quadrantsImage({ format: 'bmp', bmpBits: 8 }), info('bmp', 'bmp', 'image/bmp'), EXACT],
    ['GIF (first of two frames)', () => quadrantsImage({ format: 'gif' }), info('gif', 'gif', 'image/gif'), EXACT],
    ['JPEG', () => quadrantsImage({ format: 'jpeg' }), info('jpeg', 'jpg', 'image/jpeg'), LOSSY],
    ['PNG 8-bit', () => quadrantsImage({ format: 'png' }), info('png', 'png', 'image/png'), EXACT],
    ['PNG 16-bit', () => png16(), info('png', 'png', 'image/png'), SIXTEEN_BIT],
    ['TIFF', () => quadrantsImage({ format: 'tiff' }), info('tiff', 'tiff', 'image/tiff'), EXACT],
    ['WEBP', () => quadrantsImage({ format: 'webp' }), info('webp', 'webp', 'image/webp'), LOSSY],
    ['AVIF', () => quadrantsImage({ format: 'avif' }), info('avif', 'avif', 'image/avif'), LOSSY],
    ['HEIC', () => heicFixture(), info('heic', 'heic', 'image/heic'), LOSSY],
  ];

  it.each(cases)('%s', async (_name, make, expected, tolerance) => {
    const response = await editServed(await make());
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.data.input).toEqual(expected);
    await expectQuadrants(response, 64, 48, tolerance);
  });

  it('GIF: the first frame, not the second (the quadrants turned 180 degrees)', async () => {
    // Guards the case above: the two frames differ at every quadrant centre.
    const gif = await quadrantsImage({ format: 'gif' });
    expect((await sharp(gif).metadata()).pages).toBe(2);
    const second = await decode(await sharp(gif, { page: 1 }).png().toBuffer());
    const [x, y] = quadrantCentres(64, 48).topLeft;
    expect(colourDistance(pixelAt(second, x, y), QUADRANT_COLOURS.bottomRight)).toBe(0);
  });

  it('BMP 32-bit with alpha keeps its alpha in png', async () => {
    const response = await editServed(await quadrantsImage({ format: 'bmp', alpha: true }));
    expect(response.status).toBe(200);
    const image = await expectQuadrants(response, 64, 48, EXACT);
    expect(image.channels).toBe(4);
    const [x, y] = quadrantCentres(64, 48).bottomRight;
    expect(pixelAt(image, x, y)[3]).toBe(QUADRANT_ALPHA);
  });
});

describe('the type comes from the bytes, not the name', () => {
  it('a PNG served as /photo.jpg is a png', async () => {
    const response = await editServed(await quadrantsImage({ format: 'png' }), 'photo.jpg', undefined);
    expect(response.status).toBe(200);
    expect(response.body.data.input).toEqual(info('png', 'png', 'image/png'));
    expect(response.body.data.output).toMatchObject({ format: 'png', ext: 'png' }); // the input's own format
    await expectQuadrants(response, 64, 48, EXACT);
  });

  it('a JPEG served as /image.png is a jpeg', async () => {
    const response = await editServed(await quadrantsImage({ format: 'jpeg' }), 'image.png');
    expect(response.status).toBe(200);
    expect(response.body.data.input).toEqual(info('jpeg', 'jpg', 'image/jpeg'));
    await expectQuadrants(response, 64, 48, LOSSY);
  });

  it('a WEBP uploaded as x.gif is a webp', async () => {
    const response = await upload(await quadrantsImage({ format: 'webp' }), 'x.gif');
    expect(response.status).toBe(200);
    expect(response.body.data.input).toEqual(info('webp', 'webp', 'image/webp'));
    await expectQuadrants(response, 64, 48, LOSSY);
  });
});

describe('orientation', () => {
  it.each([
    [3, 64, 48, TURNED_180],
    [6, 48, 64, TURNED_CLOCKWISE],
    [8, 48, 64, TURNED_ANTICLOCKWISE],
  ] as const)('EXIF orientation %i: displayed as %i x %i', async (orientation, width, height, layout) => {
    const jpeg = await withOrientation(await quadrantsImage({ format: 'jpeg' }), orientation);
    expect((await sharp(jpeg).metadata()).orientation).toBe(orientation);
    const response = await editServed(jpeg);
    expect(response.status).toBe(200);
    expect(response.body.data.input).toEqual(info('jpeg', 'jpg', 'image/jpeg', width, height));
    await expectQuadrants(response, width, height, LOSSY, layout);
  });

  // irot turns anticlockwise by quarterTurns x 90 degrees (ISO/IEC 23008-12).
  it.each([
    [1, 48, 64, TURNED_ANTICLOCKWISE],
    [2, 64, 48, TURNED_180],
    [3, 48, 64, TURNED_CLOCKWISE],
  ] as const)('HEIC irot %i: displayed as %i x %i', async (quarterTurns, width, height, layout) => {
    const response = await editServed(withHeifRotation(heicFixture(), quarterTurns));
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.data.input).toEqual(info('heic', 'heic', 'image/heic', width, height));
    await expectQuadrants(response, width, height, LOSSY, layout);
  });
});

describe('damaged and oversized inputs', () => {
  const cutShort = (bytes: Buffer, keep: number) => bytes.subarray(0, Math.floor(bytes.length * keep));
  const quadrants = (format: QuadrantFormat) => quadrantsImage({ format, width: 256, height: 192 });
  const truncated: Array<[string, () => Buffer | Promise<Buffer>]> = [
    ['JPEG, its first 60 %', async () => cutShort(await quadrants('jpeg'), 0.6)],
    [
      'JPEG whose header says 1000 x 1000 (the pixel limit here) over 640 x 480 of data',
      async () => withJpegSize(await quadrantsImage({ format: 'jpeg', width: 640, height: 480 }), 1000, 1000),
    ],
    ['PNG, its first 60 %', async () => cutShort(await quadrants('png'), 0.6)],
    [
      'PNG whose header says 1000 x 750 over 256 x 192 of data',
      async () => withPngSize(await quadrants('png'), 1000, 750),
    ],
    ['WebP, its first 80 %', async () => cutShort(await quadrants('webp'), 0.8)],
    ['TIFF, its first 60 %', async () => cutShort(await quadrants('tiff'), 0.6)],
    ['GIF, its first 30 %', async () => cutShort(await quadrants('gif'), 0.3)],
    ['AVIF, its first 60 %', async () => cutShort(await quadrants('avif'), 0.6)],
    ['HEIC, its first 90 %', () => cutShort(heicFixture(), 0.9)],
    ['BMP, its pixel rows cut short', async () => cutShort(await quadrants('bmp'), 0.9)],
  ];

  it.each(truncated)('a truncated %s: 422 1602, never an image with the rest filled', async (_name, make) => {
    const response = await editServed(await make(), 'truncated');
    expect(response.status, JSON.stringify(response.body)).toBe(422);
    expect(response.body).toMatchObject({ error_code: '1602', error_type: 'image' });
    expect(response.body.error_details.input).toEqual([expect.any(String)]);
  });

  it('a JPEG cut short says so, with the size its header declares', async () => {
    const jpeg = withJpegSize(await quadrantsImage({ format: 'jpeg', width: 640, height: 480 }), 1000, 1000);
    const response = await editServed(jpeg, 'declared.jpg');
    expect(response.body.error_details.input).toEqual([
      expect.stringMatching(/ends before the whole image \(truncated: its header declares 1000 x 1000\)/),
    ]);
  });

  it('a JPEG with a warning browsers ignore (extraneous bytes before a marker) is still edited', async () => {
    const jpeg = await quadrants('jpeg');
    const dht = jpeg.indexOf(Buffer.from([0xff, 0xc4]));
    const response = await editServed(
      Buffer.concat([jpeg.subarray(0, dht), Buffer.from([1, 2, 3]), jpeg.subarray(dht)]),
    );
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.data.input).toMatchObject({ format: 'jpeg', width: 256, height: 192 });
  });

  const bombs: Array<[string, () => Buffer | Promise<Buffer>]> = [
    ['TIFF', () => tiffDeclaring(100_000, 100_000)],
    ['BMP', async () => bmpDeclaring(await quadrantsImage({ format: 'bmp' }), 100_000, 100_000)],
    ['HEIC', () => heicDeclaring(100_000, 100_000)],
  ];

  it.each(bombs)(
    'a %s declaring 100000 x 100000 pixels (data for a few): 422 1603, from the header',
    async (_name, make) => {
      const bytes = await make();
      expect(bytes.length).toBeLessThan(64 * 1024);
      const before = process.memoryUsage().rss;
      const started = Date.now();
      const response = await editServed(bytes);
      expect(response.status).toBe(422);
      expect(response.body).toMatchObject({ error_code: '1603', error_type: 'image' });
      expect(response.body.error_message).toMatch(/100000 x 100000/);
      // the setting that changes it, for the operator a user will ask
      expect(response.body.error_message).toMatch(/MAX_INPUT_PIXELS/);
      expect(response.body.error_details.input).toEqual([expect.stringMatching(String(MAX_PIXELS))]);
      // Decoding 10^10 pixels would take gigabytes and minutes; the header alone takes neither.
      expect(process.memoryUsage().rss - before).toBeLessThan(64 * 1024 * 1024);
      expect(Date.now() - started).toBeLessThan(5_000);
    },
  );

  it('an uploaded HEIC bomb is refused the same way', async () => {
    const response = await upload(heicDeclaring(100_000, 100_000), 'bomb.heic');
    expect(response.status).toBe(422);
    expect(response.body.error_code).toBe('1603');
  });

  it('the limit is the configured MAX_INPUT_PIXELS: 1000 x 1000 passes, 1250 x 1000 does not', async () => {
    const png = (width: number) =>
      sharp({ create: { width, height: 1000, channels: 3, background: '#808080' } })
        .png()
        .toBuffer();
    const atLimit = await editServed(await png(1000));
    expect(atLimit.status).toBe(200);
    expect(atLimit.body.data.input).toMatchObject({ width: 1000, height: 1000, mps: 1 });
    const over = await editServed(await png(1250));
    expect(over.status).toBe(422);
    expect(over.body.error_code).toBe('1603');
    expect(over.body.error_message).toMatch(/1250 x 1000/);
  });
});

/**
 * A little-endian baseline TIFF whose header declares width x height 8-bit grey pixels (LONG fields, so
 * beyond 65535 too) in one uncompressed strip, followed by only 16 bytes of pixel data.
 */
function tiffDeclaring(width: number, height: number): Buffer {
  const entries: Array<[tag: number, type: 3 | 4, value: number]> = [
    [256, 4, width], // ImageWidth
    [257, 4, height], // ImageLength
    [258, 3, 8], // BitsPerSample
    [259, 3, 1], // Compression: none
    [262, 3, 1], // PhotometricInterpretation: BlackIsZero
    [273, 4, 0], // StripOffsets, set below
    [277, 3, 1], // SamplesPerPixel
    [278, 4, height], // RowsPerStrip
    [279, 4, 16], // StripByteCounts: the data present, far less than declared
  ];
  const ifdSize = 2 + entries.length * 12 + 4;
  const out = Buffer.alloc(8 + ifdSize + 16);
  out.write('II', 0, 'latin1');
  out.writeUInt16LE(42, 2);
  out.writeUInt32LE(8, 4);
  out.writeUInt16LE(entries.length, 8);
  entries.forEach(([tag, type, value], i) => {
    const at = 10 + i * 12;
    out.writeUInt16LE(tag, at);
    out.writeUInt16LE(type, at + 2);
    out.writeUInt32LE(1, at + 4);
    const resolved = tag === 273 ? 8 + ifdSize : value;
    if (type === 3) out.writeUInt16LE(resolved, at + 8);
    else out.writeUInt32LE(resolved, at + 8);
  });
  return out;
}

/** `bmp` (a BITMAPINFOHEADER file, as quadrantsImage writes it) with its header declaring width x height; the pixel rows stay as they were. */
function bmpDeclaring(bmp: Buffer, width: number, height: number): Buffer {
  const out = Buffer.from(bmp);
  out.writeInt32LE(width, 18);
  out.writeInt32LE(height, 22);
  return out;
}
