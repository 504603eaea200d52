/**
 * Turns probed input bytes into what sharp opens, so that `sharp(input, options).autoOrient()` is the image
 * as displayed: the formats libvips reads go in as they are, with safety options; BMP and HEIC are decoded
 * to raw pixels on the worker threads first.
 */
import type { SharpOptions } from 'sharp';
import type { PixelPool } from '../workers/pixel-pool';
import type { RawPixels } from '../workers/raw-pixels';
import {
  assertPixelLimit,
  CorruptImageError,
  firstLine,
  type ImageProbe,
  PixelLimitError,
  UnsupportedImageError,
} from './probe';

export interface OpenedInput {
  input: Buffer;
  options: SharpOptions;
}

/**
 * What to hand sharp for bytes already probed (`probe` from {@link probeImage} of the same bytes).
 * `maxPixels` (pixels, > 0) is checked again here and given to libvips, which refuses any larger image it
 * meets while decoding. Only `run` of the pool is used, so a test may pass the kernels directly.
 * Throws PixelLimitError, or CorruptImageError when BMP or HEIC pixel data cannot be decoded.
 */
export async function openInput(
  bytes: Buffer,
  probe: ImageProbe,
  pool: Pick<PixelPool, 'run'>,
  maxPixels: number,
  tolerateJpegWarnings = false,
): Promise<OpenedInput> {
  assertPixelLimit(probe, maxPixels);
  switch (probe.format) {
    case 'bmp':
      return rawInput(await runDecoder(probe, () => pool.run('decode-bmp', { bytes: copyOf(bytes), maxPixels })));
    case 'heic': {
      const payload = { bytes: copyOf(bytes), image: probe.primaryImage, alpha: probe.hasAlpha, maxPixels };
      return rawInput(await runDecoder(probe, () => pool.run('decode-heic', payload)));
    }
    case 'gif':
    case 'tiff':
      return { input: bytes, options: { ...nativeOptions(maxPixels), pages: 1, page: 0 } };
    case 'jpeg':
      return {
        input: bytes,
        options: { ...nativeOptions(maxPixels), failOn: tolerateJpegWarnings ? 'error' : 'warning' },
      };
    case 'png':
    case 'webp':
    case 'avif':
      // No `page` for AVIF: libvips then opens the primary image, which need not be the first.
      return { input: bytes, options: nativeOptions(maxPixels) };
  }
}

/**
 * - `failOn: 'error'`: a truncated image fails (libvips ranks truncation below "error"), where `'none'`
 *   would return it with a grey or black lower part. JPEG is decoded with `'warning'` first: libjpeg reports
 *   entropy data that ends before the frame its header declares (a 7000 x 7000 header over 640 x 480 of data)
 *   only as a warning, "premature end of data segment", and fills the rest; see {@link withJpegWarningsTolerated}.
 * - `sequentialRead`: decode top to bottom without keeping the whole input image in memory where the
 *   operations allow; sharp switches to random access by itself where one needs it (rotation).
 */
function nativeOptions(maxPixels: number): SharpOptions {
  return { limitInputPixels: maxPixels, failOn: 'error', sequentialRead: true };
}

/** libjpeg's words for data that ends before the image does (JWRN_HIT_MARKER, JWRN_JPEG_EOF, libvips' EOF). */
const JPEG_CUT_SHORT = /premature end/i;

/**
 * Runs `work` (pixel work on the probed input) with JPEG decoded strictly, and once more tolerating libjpeg's
 * warnings when the strict decode failed on a warning other than the data ending early: the warnings that
 * phone and camera files often raise and browsers ignore ("extraneous bytes before marker") pass, while a JPEG
 * whose data ends before its declared size (which libjpeg fills with grey) is refused. A file with both (an
 * earlier harmless warning, then data cut short) passes on the second try, with the rest filled. Other formats
 * run once.
 */
export async function withJpegWarningsTolerated<T>(
  probe: Pick<ImageProbe, 'format'>,
  work: (tolerateJpegWarnings: boolean) => Promise<T>,
): Promise<T> {
  try {
    return await work(false);
  } catch (error) {
    const message = error instanceof Error ? firstLine(error) : '';
    if (probe.format !== 'jpeg' || !/^VipsJpeg: /.test(message) || JPEG_CUT_SHORT.test(message)) throw error;
    return work(true);
  }
}

/** The worker moves (transfers) the payload's bytes; a copy keeps the caller's buffer usable. */
function copyOf(bytes: Buffer): Uint8Array {
  return new Uint8Array(bytes);
}

/** Runs a decoder kernel; its errors (plain Errors from the worker thread) mean the pixel data is unreadable. */
async function runDecoder(probe: ImageProbe, decode: () => Promise<RawPixels>): Promise<RawPixels> {
  let pixels: RawPixels;
  try {
    pixels = await decode();
  } catch (error) {
    throw new CorruptImageError(`unreadable ${probe.format} data: ${firstLine(error)}`);
  }
  // The header the limit was checked on must describe what was decoded.
  if (pixels.width !== probe.displayWidth || pixels.height !== probe.displayHeight) {
    throw new CorruptImageError(
      `${probe.format} decoded to ${pixels.width} x ${pixels.height}, its header says ${probe.displayWidth} x ${probe.displayHeight}`,
    );
  }
  return pixels;
}

/**
 * Raw pixels for sharp. They are already upright (BMP rows are put top-down by the decoder, and libheif
 * applies HEIC's irot/imir), and raw input has no EXIF, so `autoOrient()` leaves them as they are.
 */
function rawInput({ data, width, height, channels }: RawPixels): OpenedInput {
  const input = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  return { input, options: { raw: { width, height, channels: channels as 1 | 2 | 3 | 4 } } };
}

/** libvips messages that mean the input itself is damaged (truncated, bad headers, bad compressed data). */
const CORRUPT_PATTERNS = [
  /corrupt header/i,
  /premature end/i,
  /^VipsJpeg:/,
  /^vipspng:/,
  /^webp2vips:|^webp:/,
  /^tiff2vips:|^TIFF/,
  /^gifload/,
  /^heif:|^heifload/,
  /^source: bad seek/,
  /^Unknown error$/, // libpng's CRC and inflate failures reach sharp with no text
];

/**
 * The error to report for a failure while decoding probed input with sharp (or {@link openInput}):
 * "exceeds pixel limit" becomes {@link PixelLimitError} when `limit` is given and the probe is over it
 * (otherwise the decoder found more pixels than the header declared: corrupt); "unsupported image format"
 * becomes {@link UnsupportedImageError}; damaged data (truncated, bad headers, bad compressed data) becomes
 * {@link CorruptImageError}. These three classes pass through unchanged, and any other error is returned
 * as it is (a fault of ours, not of the input).
 */
export function decodeError(
  error: unknown,
  limit?: { probe: Pick<ImageProbe, 'width' | 'height'>; maxPixels: number },
): Error {
  if (
    error instanceof CorruptImageError ||
    error instanceof UnsupportedImageError ||
    error instanceof PixelLimitError
  ) {
    return error;
  }
  if (!(error instanceof Error)) return new Error(String(error));
  const message = firstLine(error);
  if (/exceeds pixel limit/i.test(message)) {
    const { probe, maxPixels } = limit ?? {};
    if (probe && maxPixels !== undefined && probe.width * probe.height > maxPixels) {
      return new PixelLimitError(probe.width, probe.height, maxPixels);
    }
    return new CorruptImageError('the image holds more pixels than its header declares');
  }
  if (/unsupported image format/i.test(message)) return new UnsupportedImageError('not a supported image format');
  if (JPEG_CUT_SHORT.test(message)) {
    const declared = limit ? `: its header declares ${limit.probe.width} x ${limit.probe.height}` : '';
    return new CorruptImageError(`the image data ends before the whole image (truncated${declared}): ${message}`);
  }
  if (CORRUPT_PATTERNS.some((pattern) => pattern.test(message))) {
    return new CorruptImageError(`damaged image data: ${message}`);
  }
  return error;
}
