import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { photoPixels, PHOTO_HEIGHT, PHOTO_WIDTH, random } from './fixture.mjs';

/** Bump when the photos change: the cache folder's name carries it. */
const VERSION = 1;
const MIN_PIXELS = 3_000_000;
const MAX_PIXELS = 12_000_000;
/** Landscape, square and portrait shapes, as a catalogue's photos come. */
const ASPECTS = [4 / 3, 3 / 2, 1, 3 / 4, 2 / 3, 16 / 9];

/**
 * The size of photo `index` of the set: pixel counts spread evenly over 3-12 MP (by a fixed PRNG), the
 * shapes in turn. Deterministic: the same set on every machine.
 */
export function batchPhotoSize(index) {
  const rand = random(0xba7c0000 + index);
  const pixels = MIN_PIXELS + rand() * (MAX_PIXELS - MIN_PIXELS);
  const aspect = ASPECTS[index % ASPECTS.length];
  const width = Math.round(Math.sqrt(pixels * aspect));
  return { width, height: Math.round(width / aspect) };
}

/**
 * `count` different JPEGs (q90) of 3-12 MP, `photo-0000.jpg` ..., cut from the benchmark's 12 MP photo
 * (lib/fixture.mjs): each a different region, scaled to its size, some mirrored, with its own brightness and
 * hue, so that no two files are the same bytes. Written once into `cacheRoot/batch-v<VERSION>-<count>/` (a
 * complete set is moved into place only when every file is written) and reused by later runs.
 * @returns {Promise<{folder: string, names: string[]}>}
 */
export async function batchPhotos(cacheRoot, count, log = () => {}) {
  const folder = join(cacheRoot, `batch-v${VERSION}-${count}`);
  const names = Array.from({ length: count }, (_, i) => `photo-${String(i).padStart(4, '0')}.jpg`);
  if (existsSync(folder) && readdirSync(folder).length === count) return { folder, names };
  const partial = `${folder}.partial`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  log(`writing ${count} photos of 3-12 MP into ${folder} (once; about ${Math.ceil(count / 120)} min) ...`);
  const raw = { width: PHOTO_WIDTH, height: PHOTO_HEIGHT, channels: 3 };
  const pixels = photoPixels();
  for (let i = 0; i < count; i++) {
    const rand = random(0x5a11e000 + i);
    const { width, height } = batchPhotoSize(i);
    // The largest region of the photo with the output's shape, at 60-100% of that, placed at random.
    const fit = Math.min(PHOTO_WIDTH / width, PHOTO_HEIGHT / height) * (0.6 + 0.4 * rand());
    const region = { width: Math.floor(width * fit), height: Math.floor(height * fit) };
    const left = Math.floor(rand() * (PHOTO_WIDTH - region.width));
    const top = Math.floor(rand() * (PHOTO_HEIGHT - region.height));
    let image = sharp(pixels, { raw }).extract({ left, top, ...region });
    if (i % 2 === 1) image = image.flop();
    await image
      .resize(width, height, { fit: 'fill' })
      .modulate({ brightness: 0.85 + 0.3 * rand(), hue: Math.floor(rand() * 360) })
      .jpeg({ quality: 90 })
      .toFile(join(partial, names[i]));
  }
  rmSync(folder, { recursive: true, force: true });
  renameSync(partial, folder);
  return { folder, names };
}
