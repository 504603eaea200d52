// The vision suite's inputs, made by code into the run's folder (the origin server serves them):
// - removal: the edit suite's 12 MP photo (lib/fixture.mjs) with the project's sample bottle (drawn, MIT:
//   libs/storage/samples) placed on it, 4000x3000, and the same scene at 1 MP (1155x866); each with its truth
//   (the bottle's alpha on the canvas);
// - the segmentation composite set (test/fixtures/composites: 33 composites with known alpha, 640x640);
// - upscale: people (face-api's demo sample2.jpg, MIT package) at 0.25 MP; faces: its sample1.jpg (three
//   people) fitted into 1280x1280; plate: the photo at 1280x960 with a car's rear and an EU-shaped plate drawn
//   on it (DejaVu Sans Mono bold, as the plate test set draws them).
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import sharp from 'sharp';
import { compositeSet } from '../../test/fixtures/composites/composite-set.mjs';
import { photoPixels, PHOTO_HEIGHT, PHOTO_WIDTH } from './fixture.mjs';

const ROOT = join(import.meta.dirname, '..', '..');
const BOTTLE = join(ROOT, 'libs', 'storage', 'samples', 'bottle.png');
const require = createRequire(import.meta.url);
/** face-api's demo photos (its exports map hides package.json: go from its main file up to the package). */
const faceDemo = (name) => join(dirname(require.resolve('@vladmandic/face-api')), '..', 'demo', name);

/** 1 MP at 4:3. */
const SMALL = { width: 1155, height: 866 };
/** Where the bottle (480x720, scaled 2.5x) stands on the 4000x3000 photo. */
const BOTTLE_AT = { left: 1400, top: 650, width: 1200, height: 1800 };

const jpeg = (image) => image.jpeg({ quality: 90 }).toBuffer();

/** Fits width x height into `pixels` pixels, keeping the aspect ratio. */
function atPixels({ width, height }, pixels) {
  const scale = Math.sqrt(pixels / (width * height));
  return { width: Math.round(width * scale), height: Math.round(height * scale) };
}

/** The removal scene at 12 MP and 1 MP, each { name, file, jpeg, width, height, truth }. */
async function removalScene(pixels) {
  const photo = sharp(pixels, { raw: { width: PHOTO_WIDTH, height: PHOTO_HEIGHT, channels: 3 } });
  const bottle = await sharp(BOTTLE).resize(BOTTLE_AT.width, BOTTLE_AT.height).png().toBuffer();
  const { data: scene, info } = await photo
    .composite([{ input: bottle, left: BOTTLE_AT.left, top: BOTTLE_AT.top }])
    .raw()
    .toBuffer({ resolveWithObject: true });
  const margins = {
    left: BOTTLE_AT.left,
    top: BOTTLE_AT.top,
    right: PHOTO_WIDTH - BOTTLE_AT.left - BOTTLE_AT.width,
    bottom: PHOTO_HEIGHT - BOTTLE_AT.top - BOTTLE_AT.height,
  };
  // two pipelines: within one, sharp extends after extracting the channel, whatever the call order
  const alpha = await sharp(bottle).extractChannel(3).png().toBuffer();
  const truthPng = await sharp(alpha)
    .extend({ ...margins, background: '#000' })
    .png()
    .toBuffer();
  const raw = { raw: { width: PHOTO_WIDTH, height: PHOTO_HEIGHT, channels: info.channels } };
  const grey = (image) => image.extractChannel(0).raw().toBuffer();
  return [
    {
      name: '1 MP',
      file: 'removal-1mp.jpg',
      ...SMALL,
      jpeg: await jpeg(sharp(scene, raw).removeAlpha().resize(SMALL.width, SMALL.height)),
      truth: new Uint8Array(await grey(sharp(truthPng).resize(SMALL.width, SMALL.height))),
    },
    {
      name: '12 MP',
      file: 'removal-12mp.jpg',
      width: PHOTO_WIDTH,
      height: PHOTO_HEIGHT,
      jpeg: await jpeg(sharp(scene, raw).removeAlpha()),
      truth: new Uint8Array(await grey(sharp(truthPng))),
    },
  ];
}

/** An EU-shaped plate (520x110 mm) with a registration, on a car's rear, over the photo at 1280x960. */
async function plateScene(pixels) {
  const size = { width: 1280, height: 960 };
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${size.width}" height="${size.height}">
    <rect x="300" y="380" width="680" height="380" rx="40" fill="#2d3e56"/>
    <rect x="340" y="420" width="600" height="120" rx="16" fill="#8fa3bd"/>
    <rect x="330" y="600" width="620" height="40" fill="#1d2633"/>
    <rect x="484" y="650" width="312" height="66" rx="6" fill="#f4f4f0" stroke="#111" stroke-width="4"/>
    <rect x="488" y="654" width="28" height="58" fill="#1f47a8"/>
    <text x="524" y="700" font-family="DejaVu Sans Mono" font-weight="bold" font-size="46" fill="#111">AB 123 CD</text>
  </svg>`;
  const photo = await sharp(pixels, { raw: { width: PHOTO_WIDTH, height: PHOTO_HEIGHT, channels: 3 } })
    .resize(size.width, size.height)
    .png()
    .toBuffer();
  return { ...size, jpeg: await jpeg(sharp(photo).composite([{ input: Buffer.from(svg) }])) };
}

/** A demo photo fitted to a size: its bytes and size. */
async function demoPhoto(name, fit) {
  const file = faceDemo(name);
  const meta = await sharp(file).metadata();
  const size = fit(meta);
  return { ...size, jpeg: await jpeg(sharp(file).resize(size.width, size.height)) };
}

/**
 * Writes every input into `folder` and returns them: { removal: [1 MP, 12 MP], composites: [{ file, name,
 * object, truth, sha256 }], upscale, faces, plate: { file, width, height } }. `limit` keeps the first composites.
 */
export async function writeVisionInputs(folder, { composites: limit }) {
  const write = (file, item) => {
    writeFileSync(join(folder, file), item.jpeg);
    const { jpeg: bytes, ...rest } = item;
    return { file, bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex'), ...rest };
  };
  const pixels = photoPixels();
  const removal = (await removalScene(pixels)).map((scene) => write(scene.file, scene));
  const composites = (await compositeSet(limit)).map((item, i) =>
    write(`composite-${i}.jpg`, {
      jpeg: item.jpeg,
      name: item.name,
      object: item.object,
      group: item.group,
      truth: item.truth,
    }),
  );
  const upscale = write('upscale.jpg', await demoPhoto('sample2.jpg', (meta) => atPixels(meta, 250_000)));
  const faces = write(
    'faces.jpg',
    await demoPhoto('sample1.jpg', (meta) => atPixels(meta, Math.min(meta.width * meta.height, 1280 * 853))),
  );
  const plate = write('plate.jpg', await plateScene(pixels));
  return { removal, composites, upscale, faces, plate };
}
