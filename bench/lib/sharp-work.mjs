import sharp from 'sharp';

/**
 * The work every method does: the service's pipeline for one plain resize, mirrored from
 * libs/image-pipeline/src (image-pipeline.ts, operations/resize.operation.ts, operations/encode.operation.ts)
 * so that the in-process reference (a) and the bare server (d) cost what the service's sharp call costs.
 */

/** sharp's own default: libvips threads per image (one per core with MALLOC_ARENA_MAX set, which run.mjs ensures). */
export const DEFAULT_THREADS = sharp.concurrency();

/**
 * The service's thread sharing (libs/image-pipeline/src/workers/thread-share.ts): each image starts with
 * sharp's default threads divided by the images in flight, at least one. Shared by one process's images.
 */
export class ThreadShare {
  active = 0;

  enter() {
    this.active += 1;
    return Math.max(1, Math.floor(DEFAULT_THREADS / this.active));
  }

  leave() {
    this.active = Math.max(0, this.active - 1);
  }
}

/** The service's default MAX_INPUT_PIXELS (docs/configuration.md). */
const MAX_INPUT_PIXELS = 50_000_000;

/** The request: fit `bounds` into 1024x1024. */
export const BOX = { width: 1024, height: 1024 };

/** encode.operation.ts `applyFormat` with the service's defaults (docs/image-editing.md). */
export const FORMATS = {
  jpeg: { mime: 'image/jpeg', apply: (image) => image.jpeg({ quality: 85, progressive: true }) },
  webp: { mime: 'image/webp', apply: (image) => image.webp({ quality: 75 }) },
  avif: { mime: 'image/avif', apply: (image) => image.avif({ quality: 50, tune: 'ssim' }) },
};

/** The service's `bounds` rule (libs/editing/src/resize-geometry.ts): scale to fit inside, sides rounded. */
export function fitBounds(width, height, box = BOX) {
  const scale = Math.min(box.width / width, box.height / height);
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}

/**
 * One edit: decode (EXIF orientation applied), Lanczos-3 resize to exactly `size` (the service computes the
 * size from the probed header and resizes with `fit: 'fill'`), sRGB profile embedded, encoded as `format`.
 * With `share`, the image starts with its share of libvips' threads as in the service; without, with sharp's
 * default (set again each time, since (a) and (e) run in one process).
 * @param {Buffer} bytes the input file
 * @param {'jpeg'|'webp'|'avif'} format
 * @param {{width: number, height: number}} size output size in pixels
 * @param {ThreadShare} [share]
 * @returns {Promise<Buffer>} the encoded image
 */
export async function editImage(bytes, format, size, share) {
  sharp.concurrency(share ? share.enter() : DEFAULT_THREADS);
  try {
    const image = sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS, sequentialRead: true, failOn: 'error' })
      .autoOrient()
      .resize({ width: size.width, height: size.height, fit: 'fill', kernel: 'lanczos3' })
      .withIccProfile('srgb');
    return await FORMATS[format].apply(image).toBuffer();
  } finally {
    share?.leave();
  }
}

/** What an output is: its format and size, read from its header (sharp's format names: avif is `heif`). */
export async function describe(bytes) {
  const { format, width, height, compression } = await sharp(bytes).metadata();
  return { format: format === 'heif' && compression === 'av1' ? 'avif' : format, width, height };
}
