import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUADRANT_ALPHA, QUADRANT_COLOURS, quadrantsImage, withOrientation } from './fixtures/images';
import { editImage, fetchResult } from './helpers/edit-client';
import { call } from './helpers/http';
import { startImageServer, type ImageServer } from './helpers/image-server';
import { startTestApp, type TestApp } from './helpers/test-app';

/*
 * Resizing and padding over real HTTP: every case asserts the size the response reports AND the size of the
 * bytes behind tmp_url, and where the rule says where the pixels go (crop position, canvas placement, fill
 * colour), the colour at known points. Rules are the contract's resizing rules 1-6 (docs/api-contract.md, "Image edit") and
 * docs/api-contract.md, "Image edit" (padding runs before resizing; each padding value at most 50% of the side).
 * The sizes alone, rule by rule, are a table of libs/editing/src/resize-geometry.spec.ts; here, one case per form
 * of request and every case where pixels go somewhere.
 */

/** Channels 0..255; a fourth value is alpha. An expected alpha of 0 checks only alpha (the colour is undefined). */
type Colour = readonly number[];
const { topLeft: RED, topRight: GREEN, bottomLeft: BLUE, bottomRight: WHITE } = QUADRANT_COLOURS;
const MAGENTA = [255, 0, 255] as const;
const CLEAR = [0, 0, 0, 0] as const;

/** Band width of {@link gridImage}, in pixels. */
const BAND = 50;

/** The colour of grid band (column `bx`, row `by`) of {@link gridImage}: steps of 30, far apart after resampling. */
function band(bx: number, by: number): Colour {
  return [15 + 30 * bx, 15 + 30 * by, 128];
}

/**
 * A ruler image: 50 x 50 px cells, each cell's red channel names its column and green its row
 * ({@link band}). Unlike the quadrants (symmetric about the centre) it shows exactly which source pixels a
 * crop kept and whether the image was scaled or only cropped. Lossless PNG, so colours are exact.
 */
async function gridImage(width: number, height: number): Promise<Buffer> {
  const data = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) data.set(band(Math.floor(x / BAND), Math.floor(y / BAND)), (y * width + x) * 3);
  }
  return sharp(data, { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
}

interface Decoded {
  format: string | undefined;
  width: number;
  height: number;
  hasAlpha: boolean;
  /** RGBA at (x, y). */
  at(x: number, y: number): number[];
}

async function decode(bytes: Buffer): Promise<Decoded> {
  const meta = await sharp(bytes).metadata();
  const { data, info } = await sharp(bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return {
    format: meta.format,
    width: meta.width!,
    height: meta.height!,
    hasAlpha: meta.hasAlpha ?? false,
    at: (x, y) => [...data.subarray((y * info.width + x) * 4, (y * info.width + x) * 4 + 4)],
  };
}

function near(actual: number[], expected: Colour, tolerance: number): boolean {
  if (expected.length === 4 && expected[3] === 0) return actual[3] <= tolerance;
  return expected.every((value, i) => Math.abs(actual[i] - value) <= tolerance);
}

let app: TestApp;
let images: ImageServer;
/** Raw RGBA of the 400 x 300 alpha PNG, to prove a canvas keeps the image unchanged. */
let alphaPixels: Decoded;

beforeAll(async () => {
  images = await startImageServer();
  app = await startTestApp({ FETCH_ALLOW_HOSTS: '127.0.0.1', MAX_INPUT_PIXELS: '20000000' });
  images.put('/land.jpg', await quadrantsImage({ format: 'jpeg', width: 400, height: 300 }));
  images.put('/port.jpg', await quadrantsImage({ format: 'jpeg', width: 300, height: 400 }));
  images.put('/land.png', await quadrantsImage({ format: 'png', width: 400, height: 300 }));
  images.put('/port.png', await quadrantsImage({ format: 'png', width: 300, height: 400 }));
  const alpha = await quadrantsImage({ format: 'png', width: 400, height: 300, alpha: true });
  images.put('/alpha.png', alpha);
  alphaPixels = await decode(alpha);
  images.put('/grid-land.png', await gridImage(400, 300));
  // Stored 400x300 with EXIF orientation 6 (turn 90 degrees clockwise): upright it is 300x400.
  images.put(
    '/rotated.jpg',
    await withOrientation(await quadrantsImage({ format: 'jpeg', width: 400, height: 300 }), 6),
  );
  images.put('/grid-port.png', await gridImage(300, 400));
});

afterAll(async () => {
  await app?.close();
  await images?.stop();
});

function edit(body: unknown) {
  return editImage(app, body);
}

interface SizeCase {
  name: string;
  /** Path on the image server. */
  input: string;
  operations?: Record<string, unknown>;
  output?: Record<string, unknown>;
  size: [number, number];
  /** Colours at (x, y) of the result. */
  pixels?: [number, number, Colour][];
  /** Per-channel tolerance of `pixels`; default 24 (JPEG). */
  tolerance?: number;
}

/** Edits, then checks data.output and the bytes behind tmp_url against the expected size and colours. */
async function expectEdit(c: SizeCase): Promise<Decoded> {
  const response = await edit({ input: images.url(c.input), operations: c.operations, output: c.output });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  const [width, height] = c.size;
  const output = response.body.data.output;
  expect({ width: output.width, height: output.height }).toEqual({ width, height });
  expect(output.mps).toBe(Math.round((width * height) / 100) / 10_000);
  const image = await decode(await fetchResult(app, output.tmp_url));
  expect({ width: image.width, height: image.height }).toEqual({ width, height });
  expect(image.format).toBe(output.format);
  for (const [x, y, colour] of c.pixels ?? []) {
    const actual = image.at(x, y);
    expect(near(actual, colour, c.tolerance ?? 24), `pixel (${x}, ${y}) is ${actual}, expected ${colour}`).toBe(true);
  }
  return image;
}

/** The quadrant colours at the centres of the four quadrants of a width x height result. */
function quadrants(width: number, height: number): [number, number, Colour][] {
  const [x1, x2, y1, y2] = [width / 4, (3 * width) / 4, height / 4, (3 * height) / 4].map(Math.floor);
  return [
    [x1, y1, RED],
    [x2, y1, GREEN],
    [x1, y2, BLUE],
    [x2, y2, WHITE],
  ];
}

describe('rule 1: no size, the size is unchanged', () => {
  it.each<SizeCase>([
    { name: 'no operations (jpeg)', input: '/land.jpg', size: [400, 300], pixels: quadrants(400, 300) },
    { name: 'no operations (png)', input: '/port.png', size: [300, 400], pixels: quadrants(300, 400), tolerance: 0 },
    { name: 'an empty resizing group', input: '/land.jpg', operations: { resizing: {} }, size: [400, 300] },
    { name: 'fit alone (bounds)', input: '/land.png', operations: { resizing: { fit: 'bounds' } }, size: [400, 300] },
    { name: 'fit alone (canvas)', input: '/port.jpg', operations: { resizing: { fit: 'canvas' } }, size: [300, 400] },
  ])('$name', async (c) => {
    await expectEdit(c);
  });
});

describe('rule 2: crop with one side, the other side unchanged and the image cropped at the centre', () => {
  it.each<SizeCase>([
    {
      // A crop from the left would show red at the top right; a scale would not keep height 300.
      name: 'width 200 of a 400x300 jpeg: the quadrants meet in the middle',
      input: '/land.jpg',
      operations: { resizing: { width: 200 } },
      size: [200, 300],
      pixels: [...quadrants(200, 300), [90, 20, RED], [110, 20, GREEN], [90, 280, BLUE], [110, 280, WHITE]],
    },
    {
      name: 'width 200 of the 400x300 grid: source columns 100..299, unscaled',
      input: '/grid-land.png',
      operations: { resizing: { width: 200, fit: 'crop' } },
      size: [200, 300],
      pixels: [
        [25, 25, band(2, 0)],
        [75, 125, band(3, 2)],
        [125, 175, band(4, 3)],
        [175, 275, band(5, 5)],
      ],
      tolerance: 4,
    },
    {
      name: 'height 200 of a 300x400 png',
      input: '/port.png',
      operations: { resizing: { height: 200, fit: { crop: 'center' } } },
      size: [300, 200],
      pixels: [...quadrants(300, 200), [20, 90, RED], [20, 110, BLUE], [280, 90, GREEN], [280, 110, WHITE]],
      tolerance: 4,
    },
    {
      name: 'height 200 of the 300x400 grid: source rows 100..299, unscaled',
      input: '/grid-port.png',
      operations: { resizing: { height: 200 } },
      size: [300, 200],
      pixels: [
        [25, 25, band(0, 2)],
        [275, 175, band(5, 5)],
        [125, 75, band(2, 3)],
      ],
      tolerance: 4,
    },
    {
      // Covering 600 wide scales by 1.5 (600x450), then crops 75 rows from top and bottom.
      name: 'width 600 of a 400x300 jpeg: enlarged to cover, height still 300',
      input: '/land.jpg',
      operations: { resizing: { width: 600 } },
      size: [600, 300],
      pixels: quadrants(600, 300),
    },
  ])('$name', async (c) => {
    await expectEdit(c);
  });
});

describe('rule 3: another fit with one side (or the other "auto"), the aspect ratio kept', () => {
  it.each<SizeCase>([
    {
      name: 'canvas, width 200: the whole image, scaled',
      input: '/land.png',
      operations: { resizing: { width: 200, fit: 'canvas' } },
      size: [200, 150],
      pixels: quadrants(200, 150),
      tolerance: 4,
    },
    {
      name: 'cover object form, height 600 (enlarging)',
      input: '/land.jpg',
      operations: { resizing: { height: 600, fit: { type: 'cover' } } },
      size: [800, 600],
      pixels: quadrants(800, 600),
    },
    {
      name: 'bounds, width 150 of a portrait',
      input: '/port.jpg',
      operations: { resizing: { width: 150, height: 'auto', fit: 'bounds' } },
      size: [150, 200],
      pixels: quadrants(150, 200),
    },
    {
      name: 'crop with the other side "auto" keeps the aspect ratio too',
      input: '/land.jpg',
      operations: { resizing: { width: 200, height: 'auto' } },
      size: [200, 150],
      pixels: quadrants(200, 150),
    },
    {
      // Turned clockwise, the stored top-left (red) is at the top right and the bottom-left (blue) at the top left.
      name: 'sizes apply to the upright image (EXIF orientation 6: 300x400)',
      input: '/rotated.jpg',
      operations: { resizing: { width: 150, fit: 'bounds' } },
      size: [150, 200],
      pixels: [
        [37, 50, BLUE],
        [112, 50, RED],
        [37, 150, WHITE],
        [112, 150, GREEN],
      ],
    },
  ])('$name', async (c) => {
    await expectEdit(c);
  });
});

describe('rule 4: both sides with crop, exactly that size: covered, then cropped at the centre', () => {
  it.each<SizeCase>([
    {
      name: '400x300 jpeg to 200x200 (default fit)',
      input: '/land.jpg',
      operations: { resizing: { width: 200, height: 200 } },
      size: [200, 200],
      pixels: quadrants(200, 200),
    },
    {
      // Scaled by 2/3 to 267x200, 33 columns cut on each side: result x 20 is source x ~80, x 180 is ~320.
      name: '400x300 grid to 200x200, {type: "crop", crop: "center"}: scaled by 2/3, sides cut evenly',
      input: '/grid-land.png',
      operations: { resizing: { width: 200, height: 200, fit: { type: 'crop', crop: 'center' } } },
      size: [200, 200],
      pixels: [
        [20, 15, band(1, 0)],
        [117, 110, band(4, 3)],
        [180, 185, band(6, 5)],
      ],
      tolerance: 6,
    },
    {
      name: '300x400 grid to 300x100: rows 150..249, unscaled',
      input: '/grid-port.png',
      operations: { resizing: { width: 300, height: 100, fit: 'crop' } },
      size: [300, 100],
      pixels: [
        [25, 25, band(0, 3)],
        [275, 75, band(5, 4)],
      ],
      tolerance: 4,
    },
    {
      name: '400x300 png enlarged to 800x800',
      input: '/land.png',
      operations: { resizing: { width: 800, height: 800, fit: 'crop' } },
      size: [800, 800],
      pixels: quadrants(800, 800),
      tolerance: 4,
    },
    {
      // Where smart cropping centres depends on the content; the size is exact and nothing is filled.
      name: '{crop: "smart"}: exactly 300x300, only image pixels',
      input: '/land.jpg',
      operations: { resizing: { width: 300, height: 300, fit: { crop: 'smart' } } },
      size: [300, 300],
    },
  ])('$name', async (c) => {
    await expectEdit(c);
  });

  it('{crop: "smart"} keeps a 300x300 window of the unscaled image (no fill, no distortion)', async () => {
    const image = await expectEdit({
      name: 'smart grid',
      input: '/grid-land.png',
      operations: { resizing: { width: 300, height: 300, fit: { crop: 'smart' } } },
      size: [300, 300],
    });
    // Scale 1 (300/300 covers): the rows are the source's, and every column is some source column, unscaled.
    for (const [x, y] of [
      [10, 25],
      [150, 150],
      [290, 275],
    ]) {
      const [r, g, b] = image.at(x, y);
      expect(g).toBe(band(0, Math.floor(y / BAND))[1]);
      expect((r - 15) % 30, `red ${r} at (${x}, ${y}) is a grid column colour`).toBe(0);
      expect(b).toBe(128);
    }
  });
});

describe('rule 5: bounds inside, cover covering, canvas exact with the image unchanged', () => {
  it.each<SizeCase>([
    {
      name: 'bounds 800x900 enlarges until one side meets the box',
      input: '/land.png',
      operations: { resizing: { width: 800, height: 900, fit: 'bounds' } },
      size: [800, 600],
      pixels: quadrants(800, 600),
      tolerance: 4,
    },
    {
      name: 'cover 800x900 enlarges until both sides cover the box',
      input: '/land.png',
      operations: { resizing: { width: 800, height: 900, fit: 'cover' } },
      size: [1200, 900],
      pixels: quadrants(1200, 900),
      tolerance: 4,
    },
  ])('$name', async (c) => {
    await expectEdit(c);
  });

  // 400x300 centred on 500x500: 50 columns left and right, 100 rows above and below.
  const inside: [number, number, Colour][] = [
    [60, 110, RED],
    [440, 110, GREEN],
    [60, 390, BLUE],
  ];
  const border = (fill: Colour): [number, number, Colour][] => [
    [10, 10, fill],
    [250, 50, fill],
    [25, 250, fill],
    [475, 250, fill],
    [250, 450, fill],
    [490, 490, fill],
  ];

  it.each<SizeCase>([
    {
      name: 'jpeg: filled with white',
      input: '/land.jpg',
      operations: { resizing: { width: 500, height: 500, fit: 'canvas' } },
      size: [500, 500],
      pixels: [...inside, [440, 390, WHITE], ...border(WHITE)],
    },
    {
      name: 'opaque png: filled with white',
      input: '/land.png',
      operations: { resizing: { width: 500, height: 500, fit: { type: 'canvas' } } },
      size: [500, 500],
      pixels: [...inside, ...border(WHITE)],
      tolerance: 0,
    },
    {
      name: 'jpeg with background.color: filled with that colour',
      input: '/land.jpg',
      operations: { resizing: { width: 500, height: 500, fit: 'canvas' }, background: { color: '#f0f' } },
      size: [500, 500],
      pixels: [...inside, [440, 390, WHITE], ...border(MAGENTA)],
    },
    {
      name: 'png with alpha and background.color: filled with that colour, opaque',
      input: '/alpha.png',
      operations: { resizing: { width: 500, height: 500, fit: 'canvas' }, background: { color: '#FF00FF' } },
      size: [500, 500],
      pixels: [...inside, ...border([...MAGENTA, 255])],
      tolerance: 1,
    },
    {
      name: 'opaque png with background.color "transparent": transparent fill',
      input: '/land.png',
      operations: { resizing: { width: 500, height: 500, fit: 'canvas' }, background: { color: 'transparent' } },
      size: [500, 500],
      pixels: [...inside.map(([x, y, c]) => [x, y, [...c, 255]] as [number, number, Colour]), ...border(CLEAR)],
      tolerance: 0,
    },
    {
      name: 'png with alpha, webp output: transparent fill',
      input: '/alpha.png',
      operations: { resizing: { width: 500, height: 500, fit: 'canvas' } },
      output: { format: { type: 'webp', compression: 'lossless' } },
      size: [500, 500],
      pixels: [...inside.map(([x, y, c]) => [x, y, [...c, 255]] as [number, number, Colour]), ...border(CLEAR)],
      tolerance: 1,
    },
  ])('canvas 500x500 of 400x300, $name', async (c) => {
    await expectEdit(c);
  });

  it('canvas of a png with alpha: transparent fill, the image pixel for pixel where it was placed', async () => {
    const image = await expectEdit({
      name: 'alpha canvas',
      input: '/alpha.png',
      operations: { resizing: { width: 500, height: 500, fit: 'canvas' } },
      size: [500, 500],
      pixels: border(CLEAR),
      tolerance: 0,
    });
    expect(image.hasAlpha).toBe(true);
    for (const [x, y] of [
      [0, 0],
      [399, 0],
      [0, 299],
      [150, 150],
      [250, 200],
      [399, 299],
    ]) {
      expect(image.at(50 + x, 100 + y), `image pixel (${x}, ${y})`).toEqual(alphaPixels.at(x, y));
    }
    expect(image.at(399 + 50, 299 + 100)[3]).toBe(QUADRANT_ALPHA);
    // Just outside the placed image on each side: fill.
    for (const [x, y] of [
      [49, 250],
      [450, 250],
      [250, 99],
      [250, 400],
    ]) {
      expect(image.at(x, y)[3], `fill at (${x}, ${y})`).toBe(0);
    }
  });

  it('canvas smaller than the image: exactly the canvas size, the quadrants still meeting in the middle', async () => {
    await expectEdit({
      name: 'small canvas',
      input: '/land.png',
      operations: { resizing: { width: 200, height: 200, fit: 'canvas' } },
      size: [200, 200],
      pixels: [
        [50, 80, RED],
        [150, 80, GREEN],
        [50, 120, BLUE],
        [150, 120, WHITE],
      ],
      tolerance: 4,
    });
  });

  it('canvas with an odd margin puts the extra pixel on one side and keeps the size exact', async () => {
    await expectEdit({
      name: 'odd canvas',
      input: '/land.png',
      operations: { resizing: { width: 401, height: 303, fit: 'canvas' } },
      size: [401, 303],
      pixels: [
        [200, 0, WHITE],
        [200, 302, WHITE],
        [10, 10, RED],
      ],
      tolerance: 0,
    });
  });
});

describe('percentages scale both sides', () => {
  it.each<SizeCase>([
    {
      name: '"50%" both',
      input: '/land.jpg',
      operations: { resizing: { width: '50%', height: '50%' } },
      size: [200, 150],
      pixels: quadrants(200, 150),
    },
    {
      name: '"200%" both',
      input: '/land.png',
      operations: { resizing: { width: '200%', height: '200%' } },
      size: [800, 600],
      pixels: quadrants(800, 600),
      tolerance: 4,
    },
  ])('$name', async (c) => {
    await expectEdit(c);
  });
});

describe('upscale smart_resize', () => {
  it.each<SizeCase>([
    {
      name: 'without a size: 2x',
      input: '/land.jpg',
      operations: { restorations: { upscale: 'smart_resize' } },
      size: [800, 600],
      pixels: quadrants(800, 600),
    },
    {
      name: 'without a size, portrait png: 2x',
      input: '/port.png',
      operations: { restorations: { upscale: 'smart_resize' }, resizing: { fit: 'bounds' } },
      size: [600, 800],
    },
    {
      name: 'with an enlarging width (bounds): that size, not 2x',
      input: '/land.jpg',
      operations: { restorations: { upscale: 'smart_resize' }, resizing: { width: 1000, fit: 'bounds' } },
      size: [1000, 750],
      pixels: quadrants(1000, 750),
    },
    {
      name: 'with an enlarging crop: exactly that size',
      input: '/land.png',
      operations: { restorations: { upscale: 'smart_resize' }, resizing: { width: 1000, height: 500 } },
      size: [1000, 500],
      pixels: quadrants(1000, 500),
      tolerance: 40,
    },
    {
      name: 'with "300%": 3x',
      input: '/land.jpg',
      operations: { restorations: { upscale: 'smart_resize' }, resizing: { width: '300%' } },
      size: [1200, 900],
    },
    {
      // "The final size is always the one resizing asks for."
      name: 'with a shrinking size: that size',
      input: '/land.jpg',
      operations: { restorations: { upscale: 'smart_resize' }, resizing: { width: 200, fit: 'bounds' } },
      size: [200, 150],
    },
  ])('$name', async (c) => {
    await expectEdit(c);
  });
});

describe('padding (before resizing)', () => {
  const png = '/land.png';
  it.each<SizeCase>([
    {
      // 10% of 400 = 40 left and right, 10% of 300 = 30 top and bottom.
      name: '"10%": 480x360, white border',
      input: png,
      operations: { padding: '10%' },
      size: [480, 360],
      pixels: [
        [20, 180, WHITE],
        [460, 180, WHITE],
        [240, 15, WHITE],
        [240, 345, WHITE],
        [40, 30, RED],
        [439, 30, GREEN],
        [40, 329, BLUE],
        [39, 30, WHITE],
        [40, 29, WHITE],
      ],
      tolerance: 0,
    },
    {
      // First value horizontal (40 left and right), second vertical (15 top and bottom).
      name: '"10% 5%": 480x330',
      input: png,
      operations: { padding: '10% 5%' },
      size: [480, 330],
      pixels: [
        [39, 100, WHITE],
        [40, 100, RED],
        [100, 14, WHITE],
        [100, 15, RED],
        [440, 100, WHITE],
        [100, 315, WHITE],
        [439, 314, WHITE],
      ],
      tolerance: 0,
    },
    {
      name: '"20px": 440x340',
      input: png,
      operations: { padding: '20px' },
      size: [440, 340],
      pixels: [
        [19, 100, WHITE],
        [20, 20, RED],
        [419, 20, GREEN],
        [420, 20, WHITE],
        [100, 19, WHITE],
        [20, 319, BLUE],
        [20, 320, WHITE],
      ],
      tolerance: 0,
    },
    {
      name: '"10px 20px": 420x340 (10 left and right, 20 top and bottom)',
      input: png,
      operations: { padding: '10px 20px' },
      size: [420, 340],
      pixels: [
        [9, 100, WHITE],
        [10, 20, RED],
        [409, 20, GREEN],
        [410, 20, WHITE],
        [100, 19, WHITE],
        [10, 319, BLUE],
        [10, 320, WHITE],
      ],
      tolerance: 0,
    },
    {
      // Top 1, right 2, bottom 3, left 4.
      name: '"1px 2px 3px 4px": 406x304',
      input: png,
      operations: { padding: '1px 2px 3px 4px' },
      size: [406, 304],
      pixels: [
        [100, 0, WHITE],
        [4, 1, RED],
        [3, 1, WHITE],
        [403, 1, GREEN],
        [404, 1, WHITE],
        [405, 150, WHITE],
        [4, 300, BLUE],
        [4, 301, WHITE],
        [403, 300, WHITE],
        [100, 303, WHITE],
      ],
      tolerance: 0,
    },
    {
      name: '"20px" with background.color: the border in that colour',
      input: '/land.jpg',
      operations: { padding: '20px', background: { color: '#ff00ff' } },
      size: [440, 340],
      pixels: [
        [5, 5, MAGENTA],
        [220, 8, MAGENTA],
        [434, 170, MAGENTA],
        [220, 334, MAGENTA],
        [30, 30, RED],
      ],
    },
    {
      name: '"20px" of a png with alpha: a transparent border',
      input: '/alpha.png',
      operations: { padding: '20px' },
      size: [440, 340],
      pixels: [
        [5, 5, CLEAR],
        [19, 170, CLEAR],
        [220, 339, CLEAR],
        [20, 20, [...RED, 255]],
        [419, 319, [...WHITE, QUADRANT_ALPHA]],
      ],
      tolerance: 0,
    },
    {
      name: '"20px" of a png with alpha, jpeg output: a white border',
      input: '/alpha.png',
      operations: { padding: '20px' },
      output: { format: 'jpeg' },
      size: [440, 340],
      pixels: [
        [5, 5, WHITE],
        [30, 30, RED],
      ],
    },
    {
      name: '"150px" is exactly 50% of the height: allowed',
      input: png,
      operations: { padding: '150px' },
      size: [700, 600],
      pixels: [[10, 10, WHITE]],
      tolerance: 0,
    },
    {
      name: '"50%": the largest percentage, 800x600',
      input: png,
      operations: { padding: '50%' },
      size: [800, 600],
      pixels: [
        [199, 300, WHITE],
        [200, 150, RED],
      ],
      tolerance: 0,
    },
  ])('$name', async (c) => {
    await expectEdit(c);
  });

  it.each<SizeCase>([
    {
      // Padded to 480x360 first, then halved: the 40 px border becomes 20.
      name: '"10%" then width 240 (bounds): 240x180, a 20 px border',
      input: png,
      operations: { padding: '10%', resizing: { width: 240, fit: 'bounds' } },
      size: [240, 180],
      pixels: [
        [8, 90, WHITE],
        [120, 6, WHITE],
        [232, 90, WHITE],
        [120, 174, WHITE],
        [40, 40, RED],
        [200, 40, GREEN],
        [40, 140, BLUE],
      ],
      tolerance: 8,
    },
    {
      name: '"10%" then "50%": half of the padded size',
      input: '/land.jpg',
      operations: { padding: '10%', resizing: { width: '50%' } },
      size: [240, 180],
      pixels: [[8, 8, WHITE]],
    },
    {
      // Padded 440x340, covered at 200/340 (259x200), 29 columns cut each side; 20 rows of top padding -> ~12.
      name: '"20px" then a 200x200 crop: exact, the top band white',
      input: png,
      operations: { padding: '20px', resizing: { width: 200, height: 200 } },
      size: [200, 200],
      pixels: [
        [100, 3, WHITE],
        [100, 196, WHITE],
        [40, 40, RED],
        [160, 160, WHITE],
        [40, 160, BLUE],
      ],
      tolerance: 8,
    },
    {
      // Padded to 500x400 (the border magenta too), then placed unchanged on 600x400: 50 columns each side.
      name: '"50px" with a canvas of 600x400: the padded image centred, the rest filled',
      input: png,
      operations: {
        padding: '50px',
        resizing: { width: 600, height: 400, fit: 'canvas' },
        background: { color: '#f0f' },
      },
      size: [600, 400],
      pixels: [
        [10, 200, MAGENTA],
        [75, 200, MAGENTA],
        [120, 90, RED],
        [480, 310, WHITE],
      ],
      tolerance: 2,
    },
    {
      name: '"10px 20px" then upscale smart_resize without a size: 2x the padded size',
      input: png,
      operations: { padding: '10px 20px', restorations: { upscale: 'smart_resize' } },
      size: [840, 680],
    },
  ])('$name', async (c) => {
    await expectEdit(c);
  });

  it.each([
    ['"151px": over half of the 300 px height', '151px'],
    ['"201px": over half of both sides', '201px'],
    ['"100px 160px": the vertical value over half the height', '100px 160px'],
    ['"201px 10px": the horizontal value over half the width', '201px 10px'],
    ['"0px 0px 151px 0px": the bottom value over half the height', '0px 0px 151px 0px'],
    ['"1px 201px 1px 1px": the right value over half the width', '1px 201px 1px 1px'],
  ])('refuses %s with 422 at operations.padding', async (_name, padding) => {
    const response = await edit({ input: images.url('/land.jpg'), operations: { padding } });
    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({ error_code: '9000', error_type: 'validation' });
    expect(Object.keys(response.body.error_details)).toEqual(['operations.padding']);
  });
});

describe('the pixel limit applies to the result', () => {
  let limited: TestApp;
  beforeAll(async () => {
    limited = await startTestApp({ FETCH_ALLOW_HOSTS: '127.0.0.1', MAX_INPUT_PIXELS: '2000000' });
    images.put('/million.jpg', await quadrantsImage({ format: 'jpeg', width: 1000, height: 1000 }));
  });
  afterAll(async () => {
    await limited?.close();
  });

  const editLimited = (operations: unknown) =>
    call(limited.url, 'POST', '/v1/image/edit', {
      key: limited.adminKey,
      body: { input: images.url('/million.jpg'), operations },
    });

  it.each([
    ['"400%" of 1000x1000 (16 MP)', { resizing: { width: '400%' } }],
    ['2000x1001 pixels, crop', { resizing: { width: 2000, height: 1001 } }],
    ['upscale 2x (4 MP)', { restorations: { upscale: 'smart_resize' } }],
    ['padding "50%" (2000x2000, 4 MP)', { padding: '50%' }],
  ])('refuses %s with 422, naming the size', async (_name, operations) => {
    const response = await editLimited(operations);
    expect(response.status, JSON.stringify(response.body)).toBe(422);
    expect(response.body).toMatchObject({ error_code: '9000', error_type: 'validation' });
    expect(Object.keys(response.body.error_details).length).toBe(1);
    const [path] = Object.keys(response.body.error_details);
    expect(['operations.resizing', 'operations.padding']).toContain(path);
    expect(response.body.error_message).toMatch(/\d+x\d+/);
  });

  it('allows a result just under the limit ("140%": 1400x1400, 1.96 MP)', async () => {
    const response = await editLimited({ resizing: { width: '140%' } });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.data.output).toMatchObject({ width: 1400, height: 1400 });
    const meta = await sharp(
      Buffer.from(
        await (await fetch(`${limited.url}${new URL(response.body.data.output.tmp_url).pathname}`)).arrayBuffer(),
      ),
    ).metadata();
    expect([meta.width, meta.height]).toEqual([1400, 1400]);
  });

  it('allows exactly the limit (2000x1000 = 2 MP)', async () => {
    const response = await editLimited({ resizing: { width: 2000, height: 1000 } });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.data.output).toMatchObject({ width: 2000, height: 1000 });
  });
});
