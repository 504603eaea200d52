/**
 * What `output` asks for is in the bytes a user downloads: each format's options (read back from the file's own
 * structures: JPEG quantisation tables, the zlib header of a PNG, WebP chunks, TIFF tags), the resolution, the
 * colour space and embedded profile, and what happens to transparency. Black box, over real HTTP.
 */
import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CMYK_PROFILES, cmykProfilePath, iccDescription } from '@app/image-pipeline';
import { estimateJpegQuality } from '@app/image-pipeline/kernels/jpeg-quality';
import { alphaPng, cmykJpeg, gradientJpeg, greyJpeg, QUADRANT_ALPHA, quadrantsImage } from './fixtures/images';
import { editImage, fetchResult } from './helpers/edit-client';

import {
  colourDistance,
  decode,
  pixelAt,
  quadrantCentres,
  readPngStream,
  readTiffTags,
  TIFF_COMPRESSION,
  TIFF_TAG,
  webpChunks,
  type RawImage,
} from './helpers/image-bytes';
import { startImageServer, type ImageServer } from './helpers/image-server';
import { startTestApp, type TestApp } from './helpers/test-app';

let app: TestApp;
let images: ImageServer;
/** The decoded pixels of /photo.png, the source of the lossless comparisons. */
let photo: RawImage;

/** In-gamut colours for every press profile (no saturated primary): mid grey, skin tone, muted blue, muted green. */
const IN_GAMUT = [
  [128, 128, 128],
  [224, 172, 138],
  [90, 120, 160],
  [120, 150, 100],
] as const;

/** A 64 x 48 PNG with `colours` as its top-left, top-right, bottom-left and bottom-right quadrants. */
function quadrantsOf(colours: readonly (readonly number[])[]): Promise<Buffer> {
  const [width, height] = [64, 48];
  const data = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++)
      data.set(colours[(y < height / 2 ? 0 : 2) + (x < width / 2 ? 0 : 1)], (y * width + x) * 3);
  }
  return sharp(data, { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
}

beforeAll(async () => {
  images = await startImageServer();
  app = await startTestApp({ FETCH_ALLOW_HOSTS: '127.0.0.1' });
  // A smooth, textured picture: a flat image compresses to the same few bytes at every quality.
  const photoPng = await sharp(await gradientJpeg(256, 192))
    .png()
    .toBuffer();
  photo = await decode(photoPng);
  images.put('/photo.png', photoPng);
  images.put('/quadrants.png', await quadrantsImage({ format: 'png' }));
  images.put('/in-gamut.png', await quadrantsOf(IN_GAMUT));
  images.put(
    '/black.png',
    await quadrantsOf([
      [0, 0, 0],
      [0, 0, 0],
      [0, 0, 0],
      [0, 0, 0],
    ]),
  );
  images.put('/cmyk.jpg', await cmykJpeg());
  images.put('/grey.jpg', await greyJpeg());
  images.put('/alpha.png', await alphaPng());
  images.put('/half-alpha.png', await quadrantsImage({ format: 'png', alpha: true }));
});

afterAll(async () => {
  await app?.close();
  await images?.stop();
});

function edit(body: unknown) {
  return editImage(app, body);
}

/** Edits `/path` of the image server with `output` (and `operations`); the result's bytes. */
async function render(path: string, output: unknown, operations?: unknown): Promise<Buffer> {
  const response = await edit({ input: images.url(path), output, ...(operations ? { operations } : {}) });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return fetchResult(app, response.body.data.output.tmp_url);
}

function expectSamePixels(actual: RawImage, expected: RawImage): void {
  expect([actual.width, actual.height, actual.channels]).toEqual([expected.width, expected.height, expected.channels]);
  expect(Buffer.compare(actual.data, expected.data)).toBe(0);
}

describe('jpeg options', () => {
  it('writes the asked quality into the quantisation tables: 40, the default 85, 95', async () => {
    const quality = async (format: unknown) => estimateJpegQuality(await render('/photo.png', { format }));
    expect(await quality({ type: 'jpeg', quality: 40 })).toBe(40);
    expect(await quality('jpeg')).toBe(85);
    expect(await quality({ type: 'jpeg' })).toBe(85);
    expect(await quality({ type: 'jpeg', quality: 95 })).toBe(95);
  });

  it('is progressive by default and baseline when progressive is false', async () => {
    const progressive = async (format: unknown) =>
      (await sharp(await render('/photo.png', { format })).metadata()).isProgressive;
    expect(await progressive('jpeg')).toBe(true);
    expect(await progressive({ type: 'jpeg', quality: 90 })).toBe(true);
    expect(await progressive({ type: 'jpeg', progressive: false })).toBe(false);
  });
});

describe('png compression', () => {
  it('fast, optimal (the default) and best keep the pixels and use zlib levels 1, 6 and 9', async () => {
    const bytes = async (compression?: string) =>
      render('/photo.png', { format: compression ? { type: 'png', compression } : 'png' });
    const [fast, optimal, best, byName] = await Promise.all([bytes('fast'), bytes('optimal'), bytes('best'), bytes()]);
    for (const png of [fast, optimal, best, byName]) expectSamePixels(await decode(png), photo);
    // FLEVEL of the zlib header (RFC 1950): 0 for levels 0-1, 2 for the default 6, 3 for 7-9.
    expect(readPngStream(fast).zlibLevel).toBe(0);
    expect(readPngStream(optimal).zlibLevel).toBe(2);
    expect(readPngStream(byName).zlibLevel).toBe(2);
    expect(readPngStream(best).zlibLevel).toBe(3);
    expect(best.length).toBeLessThanOrEqual(optimal.length);
    expect(optimal.length).toBeLessThan(fast.length);
  });
});

describe.each(['webp', 'avif'] as const)('%s compression', (format) => {
  const defaultQuality = format === 'webp' ? 75 : 50;
  const lossy = (quality: number) =>
    render('/photo.png', { format: { type: format, compression: { type: 'lossy', quality } } });

  it('lossy: the file grows with the quality', async () => {
    const [low, mid, high] = await Promise.all([lossy(10), lossy(50), lossy(95)]);
    expect(low.length).toBeLessThan(mid.length);
    expect(mid.length).toBeLessThan(high.length);
    if (format === 'webp') expect(webpChunks(high)).toContain('VP8 ');
  });

  it(`by name is lossy with quality ${defaultQuality}`, async () => {
    const [byName, asDefault, other] = await Promise.all([
      render('/photo.png', { format }),
      lossy(defaultQuality),
      lossy(defaultQuality === 75 ? 50 : 75),
    ]);
    expect(Buffer.compare(byName, asDefault)).toBe(0);
    expect(Buffer.compare(byName, other)).not.toBe(0);
  });

  it('lossless: the decoded pixels equal the source', async () => {
    for (const compression of ['lossless', { type: 'lossless' }]) {
      const bytes = await render('/photo.png', { format: { type: format, compression } });
      if (format === 'webp') {
        expect(webpChunks(bytes)).toContain('VP8L');
        expect(webpChunks(bytes)).not.toContain('VP8 ');
      }
      expectSamePixels(await decode(bytes), photo);
    }
  });
});

describe('tiff compression', () => {
  const tiff = (format: unknown) => render('/photo.png', { format });

  it('is LZW by default and for lossless, with the pixels kept', async () => {
    for (const format of ['tiff', { type: 'tiff' }, { type: 'tiff', compression: 'lossless' }]) {
      const bytes = await tiff(format);
      expect(readTiffTags(bytes).get(TIFF_TAG.compression)).toEqual([TIFF_COMPRESSION.lzw]);
      expectSamePixels(await decode(bytes), photo);
    }
  });

  it('lossy is JPEG-in-TIFF at the asked quality, 75 by default', async () => {
    const quality = async (compression: unknown) => {
      const tags = readTiffTags(await tiff({ type: 'tiff', compression }));
      expect(tags.get(TIFF_TAG.compression)).toEqual([TIFF_COMPRESSION.jpeg]);
      return estimateJpegQuality(Buffer.from(tags.get(TIFF_TAG.jpegTables) as number[]));
    };
    expect(await quality({ type: 'lossy', quality: 60 })).toBe(60);
    expect(await quality('lossy')).toBe(75);
    expect(await quality({ type: 'lossy' })).toBe(75);
  });
});

describe('metadata.dpi', () => {
  it.each(['jpeg', 'png', 'tiff'])('%s: the format density field says 300 dpi', async (format) => {
    const bytes = await render('/quadrants.png', { format, metadata: { dpi: 300 } });
    expect((await sharp(bytes).metadata()).density).toBe(300);
    if (format === 'tiff') {
      const tags = readTiffTags(bytes);
      const [[numerator, denominator]] = tags.get(TIFF_TAG.xResolution) as Array<[number, number]>;
      expect(numerator / denominator).toBe(300);
      expect(tags.get(TIFF_TAG.resolutionUnit)).toEqual([2]); // inch
    }
  });

  it.each(['webp', 'avif'])('%s: EXIF XResolution and YResolution say 300 per inch', async (format) => {
    const bytes = await render('/quadrants.png', { format, metadata: { dpi: 300 } });
    const { exif } = await sharp(bytes).metadata();
    expect(exif).toBeDefined();
    const tags = readTiffTags(exif!);
    expect(tags.get(TIFF_TAG.xResolution)).toEqual([[300, 1]]);
    expect(tags.get(TIFF_TAG.yResolution)).toEqual([[300, 1]]);
    expect(tags.get(TIFF_TAG.resolutionUnit)).toEqual([2]);
    if (format === 'webp') expect(webpChunks(bytes)).toContain('EXIF');
  });
});

describe('colour space', () => {
  /** The embedded profile of `bytes`, with the channels and libvips interpretation of its pixels. */
  async function colourOf(bytes: Buffer) {
    const meta = await sharp(bytes).metadata();
    return {
      channels: meta.channels,
      space: meta.space,
      icc: meta.icc,
      description: meta.icc && iccDescription(meta.icc),
    };
  }

  it.each(['jpeg', 'png', 'webp', 'avif', 'tiff'])('RGB input -> %s with the sRGB profile embedded', async (format) => {
    const colour = await colourOf(await render('/quadrants.png', { format }));
    expect([colour.channels, colour.space, colour.description]).toEqual([3, 'srgb', 'sRGB']);
  });

  it('CMYK without a profile is ISO_Coated, embedded byte for byte', async () => {
    for (const color_space of ['CMYK', { type: 'CMYK' }]) {
      const colour = await colourOf(await render('/in-gamut.png', { format: 'jpeg', metadata: { color_space } }));
      expect([colour.channels, colour.space, colour.description]).toEqual([
        4,
        'cmyk',
        CMYK_PROFILES.ISO_Coated.description,
      ]);
      expect(Buffer.compare(colour.icc!, readFileSync(cmykProfilePath('ISO_Coated')))).toBe(0);
    }
  });

  // Round trip sRGB -> press profile -> sRGB of the in-gamut quadrants, measured at q85: at most 11 levels off
  // (USWeb_Coated, muted blue), from JPEG and 8-bit ink quantisation and the profiles' own approximations. 16
  // allows for other lcms/libjpeg builds; a conversion that ignored the profile is off by far more.
  const ROUND_TRIP_TOLERANCE = 16;

  it.each(Object.keys(CMYK_PROFILES) as Array<keyof typeof CMYK_PROFILES>)(
    '%s: CMYK pixels with that profile embedded, back to sRGB close to the source',
    async (name) => {
      const bytes = await render('/in-gamut.png', {
        format: 'jpeg',
        metadata: { color_space: { type: 'CMYK', color_profile: name } },
      });
      const colour = await colourOf(bytes);
      expect([colour.channels, colour.space, colour.description]).toEqual([4, 'cmyk', CMYK_PROFILES[name].description]);
      expect(Buffer.compare(colour.icc!, readFileSync(cmykProfilePath(name)))).toBe(0);
      const back = await decode(await sharp(bytes).toColourspace('srgb').png().toBuffer());
      const centres = Object.values(quadrantCentres(64, 48));
      centres.forEach(([x, y], i) =>
        expect(colourDistance(pixelAt(back, x, y), IN_GAMUT[i])).toBeLessThanOrEqual(ROUND_TRIP_TOLERANCE),
      );
    },
  );

  it.each(Object.keys(CMYK_PROFILES) as Array<keyof typeof CMYK_PROFILES>)(
    '%s: black uses nearly all of the profile ink limit and never more',
    async (name) => {
      const bytes = await render('/black.png', {
        format: { type: 'jpeg', quality: 100 },
        metadata: { color_space: { type: 'CMYK', color_profile: name } },
      });
      // The stored ink values (0..255 per channel), not converted through the profile.
      const inks = await sharp(bytes).pipelineColourspace('cmyk').toColourspace('cmyk').raw().toBuffer();
      const coverage = ([...inks.subarray(0, 4)].reduce((sum, ink) => sum + ink, 0) / 255) * 100;
      // Measured: 321.6% (ISO_Coated 330), 294.9% (ISO_Uncoated 300), 300.0% (USWeb_Coated 300), 254.5% (USWeb_Uncoated 260).
      expect(coverage).toBeLessThanOrEqual(CMYK_PROFILES[name].totalAreaCoverage + 2);
      expect(coverage).toBeGreaterThanOrEqual(CMYK_PROFILES[name].totalAreaCoverage - 10);
    },
  );

  it.each(['png', 'webp', 'avif', 'tiff'])(
    'CMYK with %s output: 422 at output.metadata.color_space',
    async (format) => {
      const response = await edit({
        input: images.url('/quadrants.png'),
        output: { format, metadata: { color_space: 'CMYK' } },
      });
      expect(response.status).toBe(422);
      expect(response.body.error_code).toBe('9000');
      expect(response.body.error_details).toHaveProperty(['output.metadata.color_space']);
    },
  );

  it('CMYK input: jpeg keeps CMYK and its profile; png becomes sRGB with the same colours', async () => {
    const source = await colourOf(await cmykJpeg());
    const jpeg = await colourOf(await render('/cmyk.jpg', { format: 'jpeg' }));
    expect([jpeg.channels, jpeg.space]).toEqual([4, 'cmyk']);
    expect(jpeg.description).toBe(source.description);
    expect(Buffer.compare(jpeg.icc!, source.icc!)).toBe(0);
    const png = await render('/cmyk.jpg', { format: 'png' });
    const colour = await colourOf(png);
    expect([colour.channels, colour.space, colour.description]).toEqual([3, 'srgb', 'sRGB']);
    // The source seen through its own profile, as any colour-managed viewer shows it (measured: identical).
    const expected = await decode(
      await sharp(await cmykJpeg())
        .toColourspace('srgb')
        .png()
        .toBuffer(),
    );
    const actual = await decode(png);
    for (const [x, y] of Object.values(quadrantCentres(64, 48))) {
      expect(colourDistance(pixelAt(actual, x, y), pixelAt(expected, x, y))).toBeLessThanOrEqual(2);
    }
  });

  // The input keeps its space only "when no colour space is given"; RGB asked for is RGB delivered.
  it.each(['/cmyk.jpg', '/grey.jpg'])('color_space RGB turns %s into sRGB', async (path) => {
    const colour = await colourOf(await render(path, { format: 'jpeg', metadata: { color_space: 'RGB' } }));
    expect([colour.channels, colour.space, colour.description]).toEqual([3, 'srgb', 'sRGB']);
  });

  it('grey input stays one grey channel in jpeg and png', async () => {
    for (const format of ['jpeg', 'png']) {
      const bytes = await render('/grey.jpg', { format });
      const colour = await colourOf(bytes);
      expect([colour.channels, colour.space]).toEqual([1, 'b-w']);
      const grey = await decode(bytes);
      expect(pixelAt(grey, 8, 24)[0]).toBeLessThanOrEqual(4);
      expect(pixelAt(grey, 56, 24)[0]).toBeGreaterThanOrEqual(251);
    }
  });
});

describe('transparency', () => {
  // Fully transparent (black, alpha 0) in the source: alphaPng's border is 8 px wide.
  const corners = [
    [0, 0],
    [63, 0],
    [0, 47],
    [63, 47],
    [2, 2],
  ];
  const centre = [32, 24];

  it('transparent background with jpeg output: 422 at operations.background.color', async () => {
    const response = await edit({
      input: images.url('/alpha.png'),
      operations: { background: { color: 'transparent' } },
      output: { format: 'jpeg' },
    });
    expect(response.status).toBe(422);
    expect(response.body.error_details).toHaveProperty(['operations.background.color']);
  });

  it.each(['png', 'webp', 'avif', 'tiff'])('%s keeps the alpha channel', async (format) => {
    const image = await decode(await render('/alpha.png', { format }));
    expect(image.channels).toBe(4);
    for (const [x, y] of corners) expect(pixelAt(image, x, y)[3]).toBe(0);
    expect(pixelAt(image, centre[0], centre[1])[3]).toBe(255);
    expect(colourDistance(pixelAt(image, centre[0], centre[1]), [255, 0, 0])).toBeLessThanOrEqual(2);
  });

  // The border of alphaPng is 8 px, half a 4:2:0 JPEG block, so the red centre's chroma bleeds into it:
  // measured at most 7 levels off white at q85. 12 keeps a clear gap from unflattened black (255 off).
  const BORDER_TOLERANCE = 12;

  it('jpeg is flattened onto white by default', async () => {
    const image = await decode(await render('/alpha.png', { format: 'jpeg' }));
    expect(image.channels).toBe(3);
    for (const [x, y] of corners)
      expect(colourDistance(pixelAt(image, x, y), [255, 255, 255])).toBeLessThanOrEqual(BORDER_TOLERANCE);
    expect(colourDistance(pixelAt(image, centre[0], centre[1]), [255, 0, 0])).toBeLessThanOrEqual(2);
    // Half-transparent white over white stays white; opaque quadrants are unchanged.
    const half = await decode(await render('/half-alpha.png', { format: 'jpeg' }));
    const { topLeft, bottomRight } = quadrantCentres(64, 48);
    expect(colourDistance(pixelAt(half, bottomRight[0], bottomRight[1]), [255, 255, 255])).toBeLessThanOrEqual(2);
    expect(colourDistance(pixelAt(half, topLeft[0], topLeft[1]), [255, 0, 0])).toBeLessThanOrEqual(2);
  });

  it('jpeg is flattened onto background.color', async () => {
    const operations = { background: { color: '#ff0000' } };
    const image = await decode(await render('/alpha.png', { format: 'jpeg' }, operations));
    for (const [x, y] of [...corners, centre])
      expect(colourDistance(pixelAt(image, x, y), [255, 0, 0])).toBeLessThanOrEqual(2);
    // White at alpha 128 over red: red stays 255, green and blue become 255 x 128 / 255 = 128.
    const half = await decode(await render('/half-alpha.png', { format: 'jpeg' }, operations));
    const [x, y] = quadrantCentres(64, 48).bottomRight;
    const blended = Math.round((255 * QUADRANT_ALPHA) / 255);
    expect(colourDistance(pixelAt(half, x, y), [255, blended, blended])).toBeLessThanOrEqual(2);
  });
});
