import sharp from 'sharp';

/**
 * The work every method does: the service's pipeline for one plain resize, mirrored from
 * libs/image-pipeline/src (image-pipeline.ts, operations/resize.operation.ts, operations/encode.operation.ts)
 * so that the in-process reference (a) and the bare server (d) cost what the service's sharp call costs.
 */

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
 * @param {Buffer} bytes the input file
 * @param {'jpeg'|'webp'|'avif'} format
 * @param {{width: number, height: number}} size output size in pixels
 * @returns {Promise<Buffer>} the encoded image
 */
export function editImage(bytes, format, size) {
  const image = sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS, sequentialRead: true, failOn: 'error' })
    .autoOrient()
    .resize({ width: size.width, height: size.height, fit: 'fill', kernel: 'lanczos3' })
    .withIccProfile('srgb');
  return FORMATS[format].apply(image).toBuffer();
}

/** What an output is: its format and size, read from its header (sharp's format names: avif is `heif`). */
export async function describe(bytes) {
  const { format, width, height, compression } = await sharp(bytes).metadata();
  return { format: format === 'heif' && compression === 'av1' ? 'avif' : format, width, height };
}
