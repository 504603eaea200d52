/**
 * What an input image is, read from its header alone: no pixel is decoded here, so a decompression bomb is
 * measured (and refused by {@link assertPixelLimit}) before it can take memory. The format comes from the
 * bytes (`sniffMediaType`), never from a file name or Content-Type.
 */
import { type ImageMediaType, sniffMediaType, SNIFF_BYTES } from '@app/common';
import sharp, { type Metadata } from 'sharp';
import { BmpHeaderError, readBmpHeader } from '../kernels/decode.kernel';

/** The bytes are not an image format Atelier reads (or a variant of one it does not, e.g. RLE BMP). */
export class UnsupportedImageError extends Error {
  override readonly name = 'UnsupportedImageError';
}

/** The bytes claim a supported format but its header or data cannot be read (truncated, damaged). */
export class CorruptImageError extends Error {
  override readonly name = 'CorruptImageError';
}

/** The image has more pixels than allowed; raised from the header, before decoding. */
export class PixelLimitError extends Error {
  override readonly name = 'PixelLimitError';

  constructor(
    /** Pixels, as stored. */
    readonly width: number,
    readonly height: number,
    /** The largest width x height allowed, in pixels. */
    readonly limit: number,
  ) {
    super(`image of ${width} x ${height} pixels exceeds the limit of ${limit} pixels`);
  }
}

/**
 * EXIF-style orientation: 1 upright, 2 mirrored, 3 rotated 180, 4 flipped, 5..8 rotated a quarter turn
 * (with or without a mirror), so the displayed width and height are swapped.
 */
export type Orientation = 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8;

export interface ImageProbe {
  /** The format read from the bytes; for the HEIF family, from the codec (av1: avif, hevc: heic). */
  format: ImageMediaType;
  /**
   * Pixels as the decoder yields them, before `orientation` is applied. For HEIC and AVIF this is after the
   * container's own `irot`/`imir` transforms, which libheif applies while decoding (in libvips and in
   * heic-decode alike); the EXIF orientation inside a HEIF file is ignored, as the HEIF standard requires.
   */
  width: number;
  height: number;
  /** The orientation `sharp(...).autoOrient()` still applies; 1 for BMP, HEIC and AVIF. */
  orientation: Orientation;
  /** Pixels as displayed: width and height swapped for orientations 5..8. */
  displayWidth: number;
  displayHeight: number;
  /** Bands including alpha: 1 (grey) .. 5 (CMYK + alpha). */
  channels: number;
  /** True when the image carries an alpha channel (for a 32-bit BMP: may carry, see decodeBmpKernel). */
  hasAlpha: boolean;
  /** libvips' interpretation: 'srgb', 'cmyk', 'b-w', 'rgb16', 'grey16', ... */
  space: 'srgb' | 'cmyk' | 'b-w' | string;
  /** Embedded ICC profile, if any. */
  icc?: Buffer;
  isProgressive?: boolean;
  /** Frames (GIF, WebP), pages (TIFF) or top-level images (HEIF); only the first (HEIF: primary) is read. */
  pages?: number;
  /** HEIC: index of the primary image among the top-level images, which the HEIC decoder must pick. */
  primaryImage?: number;
}

/**
 * Reads the header of `bytes` (any length; only the header is parsed). Throws {@link UnsupportedImageError}
 * for bytes that are not one of the eight formats, {@link CorruptImageError} when the header cannot be read.
 */
export async function probeImage(bytes: Buffer): Promise<ImageProbe> {
  const sniffed = sniffMediaType(bytes.subarray(0, SNIFF_BYTES));
  if (sniffed === undefined) {
    throw new UnsupportedImageError('not a supported image format (BMP, GIF, JPEG, PNG, TIFF, WebP, AVIF or HEIC)');
  }
  return sniffed === 'bmp' ? probeBmp(bytes) : probeWithSharp(bytes, sniffed);
}

/** Throws {@link PixelLimitError} when width x height exceeds `maxPixels` (a count of pixels, > 0). */
export function assertPixelLimit(probe: Pick<ImageProbe, 'width' | 'height'>, maxPixels: number): void {
  if (probe.width * probe.height > maxPixels) throw new PixelLimitError(probe.width, probe.height, maxPixels);
}

function probeBmp(bytes: Buffer): ImageProbe {
  try {
    const header = readBmpHeader(bytes);
    const channels = header.hasAlpha ? 4 : 3;
    return {
      format: 'bmp',
      width: header.width,
      height: header.height,
      // Bottom-up and top-down row orders are undone by the decoder; BMP has no orientation tag.
      orientation: 1,
      ...displayed(header.width, header.height, 1),
      channels,
      hasAlpha: header.hasAlpha,
      space: 'srgb',
    };
  } catch (error) {
    if (!(error instanceof BmpHeaderError)) throw error;
    throw error.reason === 'unsupported'
      ? new UnsupportedImageError(error.message)
      : new CorruptImageError(error.message);
  }
}

/** The sharp format name each sniffed type must decode as; anything else means the bytes disagree. */
const SHARP_FORMATS: Readonly<Record<Exclude<ImageMediaType, 'bmp'>, string>> = {
  jpeg: 'jpeg',
  png: 'png',
  gif: 'gif',
  webp: 'webp',
  tiff: 'tiff',
  avif: 'heif',
  heic: 'heif',
};

async function probeWithSharp(bytes: Buffer, sniffed: Exclude<ImageMediaType, 'bmp'>): Promise<ImageProbe> {
  let metadata: Metadata;
  try {
    // No pixel limit here: the probe must report the size so that assertPixelLimit can name it. Reading
    // metadata decodes no pixels (and for HEIC needs no HEVC decoder, which sharp's libvips lacks).
    metadata = await sharp(bytes, { limitInputPixels: false }).metadata();
  } catch (error) {
    throw new CorruptImageError(`unreadable ${sniffed} header: ${firstLine(error)}`);
  }
  if (metadata.format !== SHARP_FORMATS[sniffed]) {
    throw new CorruptImageError(`bytes start like ${sniffed} but read as ${metadata.format}`);
  }
  const format = sniffed === 'avif' || sniffed === 'heic' ? heifFormat(bytes, sniffed) : sniffed;
  const { width, height } = metadata;
  if (!(width > 0 && height > 0)) throw new CorruptImageError(`${format} header declares no pixels`);
  // libvips drops the EXIF orientation of HEIF files (their irot/imir are applied in decoding instead).
  const orientation = isOrientation(metadata.orientation) ? metadata.orientation : 1;
  return {
    format,
    width,
    height,
    orientation,
    ...displayed(width, height, orientation),
    channels: metadata.channels,
    hasAlpha: metadata.hasAlpha,
    space: metadata.space,
    icc: metadata.icc,
    isProgressive: metadata.isProgressive,
    pages: metadata.pages,
    primaryImage: format === 'heic' ? (metadata.pagePrimary ?? 0) : undefined,
  };
}

/**
 * AVIF or HEIC from the codec, not the brands: the two share the HEIF container, brands are often only the
 * generic `mif1` (sharp's `compression` is read from them too), and the decoder to use depends on the codec
 * alone. The codec is the decoder configuration property in `meta/iprp/ipco`: `av1C` or `hvcC`.
 */
function heifFormat(bytes: Buffer, sniffed: 'avif' | 'heic'): 'avif' | 'heic' {
  const properties = childTypes(bytes, ['meta', 'iprp', 'ipco']);
  if (!properties) return sniffed; // boxes this reader does not follow (e.g. 64-bit sizes first): trust the brands
  const av1 = properties.has('av1C');
  const hevc = properties.has('hvcC');
  if (av1 !== hevc) return av1 ? 'avif' : 'heic';
  if (av1) return sniffed; // both codecs in one file (e.g. an AV1 thumbnail): the brands decide
  throw new UnsupportedImageError('HEIF images coded with neither HEVC nor AV1 are not supported');
}

/** The box types inside the box at `path` (ISO-BMFF; `meta` is a full box), reading box headers only. */
function childTypes(bytes: Buffer, path: readonly string[]): Set<string> | undefined {
  let start = 0;
  let end = bytes.length;
  for (const type of path) {
    const box = findBox(bytes, start, end, type);
    if (!box) return undefined;
    [start, end] = [box.start + 8 + (type === 'meta' ? 4 : 0), box.end];
  }
  const types = new Set<string>();
  for (let at = start; at + 8 <= end; at += Math.max(8, bytes.readUInt32BE(at))) {
    types.add(bytes.toString('latin1', at + 4, at + 8));
  }
  return types;
}

function findBox(bytes: Buffer, start: number, end: number, type: string): { start: number; end: number } | undefined {
  for (let at = start; at + 8 <= end;) {
    const size = bytes.readUInt32BE(at);
    const found = bytes.toString('latin1', at + 4, at + 8) === type;
    // Size 0 runs to the end of the file; size 1 (a 64-bit size) is only used for media data. Either ends the walk.
    if (size < 8) return found ? { start: at, end } : undefined;
    if (found) return { start: at, end: Math.min(end, at + size) };
    at += size;
  }
  return undefined;
}

function isOrientation(value: number | undefined): value is Orientation {
  return value !== undefined && Number.isInteger(value) && value >= 1 && value <= 8;
}

function displayed(width: number, height: number, orientation: Orientation) {
  const swapped = orientation >= 5;
  return { displayWidth: swapped ? height : width, displayHeight: swapped ? width : height };
}

/** The first line of an error's message (libvips stacks one line per failed attempt). */
export function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0];
}
