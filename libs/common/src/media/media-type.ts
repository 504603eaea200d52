/**
 * The one place that maps image formats to MIME types and file extensions, and recognises a format from its
 * first bytes. Sniffing never trusts a Content-Type header or a file name: servers and users get both wrong.
 */

/** The image formats Atelier reads. */
export type ImageMediaType = 'jpeg' | 'png' | 'gif' | 'webp' | 'avif' | 'heic' | 'tiff' | 'bmp';

/** The formats Atelier writes. */
export type OutputMediaType = 'jpeg' | 'png' | 'webp' | 'avif' | 'tiff';

/** What a written format can hold. */
export interface OutputCapabilities {
  /** An alpha channel. */
  readonly alpha: boolean;
  /** CMYK pixels (a CMYK input keeps its space). */
  readonly cmyk: boolean;
  /**
   * A conversion to CMYK on request (`color_space: CMYK`): jpeg only, as the contract has it; tiff holds CMYK
   * pixels but is not offered as a target.
   */
  readonly cmykOnRequest: boolean;
  /** One grey channel (else grey is written as RGB). */
  readonly grey: boolean;
  /** Largest width or height the encoder accepts, in pixels. */
  readonly maxSide: number;
}

export interface MediaTypeInfo {
  /** Canonical MIME type, as written in Content-Type headers. */
  readonly mime: string;
  /** Canonical file extension, without the dot. */
  readonly ext: string;
  /** For the formats Atelier writes: what the format holds. */
  readonly output?: OutputCapabilities;
  /** For the formats it only reads: the format an edit writes by default instead. */
  readonly writtenAs?: OutputMediaType;
}

export const MEDIA_TYPES: Readonly<Record<ImageMediaType, MediaTypeInfo>> = {
  jpeg: {
    mime: 'image/jpeg',
    ext: 'jpg',
    output: { alpha: false, cmyk: true, cmykOnRequest: true, grey: true, maxSide: 65_535 },
  },
  png: {
    mime: 'image/png',
    ext: 'png',
    output: { alpha: true, cmyk: false, cmykOnRequest: false, grey: true, maxSide: 1_000_000 },
  },
  gif: { mime: 'image/gif', ext: 'gif', writtenAs: 'png' },
  webp: {
    mime: 'image/webp',
    ext: 'webp',
    output: { alpha: true, cmyk: false, cmykOnRequest: false, grey: false, maxSide: 16_383 },
  },
  avif: {
    mime: 'image/avif',
    ext: 'avif',
    output: { alpha: true, cmyk: false, cmykOnRequest: false, grey: false, maxSide: 16_384 },
  },
  heic: { mime: 'image/heic', ext: 'heic', writtenAs: 'jpeg' },
  tiff: {
    mime: 'image/tiff',
    ext: 'tiff',
    output: { alpha: true, cmyk: true, cmykOnRequest: false, grey: true, maxSide: 1_000_000 },
  },
  bmp: { mime: 'image/bmp', ext: 'bmp', writtenAs: 'png' },
};

/** What an output format holds. */
export function outputCapabilities(format: OutputMediaType): OutputCapabilities {
  return MEDIA_TYPES[format].output as OutputCapabilities;
}

/** Whether a format is one Atelier writes. */
export function isOutputMediaType(type: ImageMediaType): type is OutputMediaType {
  return MEDIA_TYPES[type].output !== undefined;
}

/** Bytes {@link sniffMediaType} needs to see to recognise every format (the ISO-BMFF `ftyp` box may list brands). */
export const SNIFF_BYTES = 64;

/** Extensions and MIME types in use besides the canonical ones. */
const EXTENSION_ALIASES: Readonly<Record<string, ImageMediaType>> = {
  jpe: 'jpeg',
  jpeg: 'jpeg',
  tif: 'tiff',
  heif: 'heic',
};
const MIME_ALIASES: Readonly<Record<string, ImageMediaType>> = {
  'image/jpg': 'jpeg',
  'image/pjpeg': 'jpeg',
  'image/heif': 'heic',
  'image/x-ms-bmp': 'bmp',
};

/** A format with its MIME type and extension, as the look-ups answer it. */
export interface MediaTypeMatch extends MediaTypeInfo {
  readonly type: ImageMediaType;
}

/** The format of a file extension (`jpg`, `.JPEG`, `tif`, `heif`), or undefined when not an image format. */
export function mediaTypeOfExtension(ext: string): MediaTypeMatch | undefined {
  const key = ext.trim().toLowerCase().replace(/^\./, '');
  return match(EXTENSION_ALIASES[key] ?? findType((info) => info.ext === key));
}

/** The format of a MIME type (parameters ignored, e.g. `image/png; q=1`), or undefined. */
export function mediaTypeOfMime(mime: string): MediaTypeMatch | undefined {
  const key = mime.split(';')[0].trim().toLowerCase();
  return match(MIME_ALIASES[key] ?? findType((info) => info.mime === key));
}

function findType(test: (info: MediaTypeInfo) => boolean): ImageMediaType | undefined {
  return (Object.keys(MEDIA_TYPES) as ImageMediaType[]).find((type) => test(MEDIA_TYPES[type]));
}

function match(type: ImageMediaType | undefined): MediaTypeMatch | undefined {
  return type === undefined ? undefined : { type, ...MEDIA_TYPES[type] };
}

function startsWith(bytes: Buffer, signature: readonly number[], offset = 0): boolean {
  return bytes.length >= offset + signature.length && signature.every((byte, i) => bytes[offset + i] === byte);
}

function ascii(bytes: Buffer, start: number, end: number): string {
  return bytes.length >= end ? bytes.toString('latin1', start, end) : '';
}

const AVIF_BRANDS = new Set(['avif', 'avis']);
const HEIC_BRANDS = new Set(['heic', 'heix', 'hevc', 'hevx', 'heim', 'heis']);
/** Generic HEIF brands: an AVIF file lists them too, so they decide only when no specific brand does. */
const HEIF_GENERIC_BRANDS = new Set(['mif1', 'msf1']);

/** AVIF or HEIC from an ISO-BMFF `ftyp` box: its major brand first, then its compatible brands. */
function sniffFtyp(bytes: Buffer): ImageMediaType | undefined {
  if (ascii(bytes, 4, 8) !== 'ftyp') return undefined;
  const boxEnd = Math.min(bytes.readUInt32BE(0), bytes.length);
  const major = ascii(bytes, 8, 12);
  const compatible: string[] = [];
  for (let offset = 16; offset + 4 <= boxEnd; offset += 4) compatible.push(ascii(bytes, offset, offset + 4));
  if (AVIF_BRANDS.has(major)) return 'avif';
  if (HEIC_BRANDS.has(major)) return 'heic';
  if (compatible.some((brand) => AVIF_BRANDS.has(brand))) return 'avif';
  if (compatible.some((brand) => HEIC_BRANDS.has(brand))) return 'heic';
  if ([major, ...compatible].some((brand) => HEIF_GENERIC_BRANDS.has(brand))) return 'heic';
  return undefined;
}

/** Sizes of the BMP info headers in use (BITMAPCOREHEADER to BITMAPV5HEADER); "BM" alone is too weak a sign. */
const BMP_INFO_HEADER_SIZES = new Set([12, 16, 40, 52, 56, 64, 108, 124]);

function isBmp(bytes: Buffer): boolean {
  if (!startsWith(bytes, [0x42, 0x4d])) return false;
  return bytes.length < 18 || BMP_INFO_HEADER_SIZES.has(bytes.readUInt32LE(14));
}

/**
 * The image format of a file from its first bytes (magic numbers), or undefined when not recognised.
 * Give it at least {@link SNIFF_BYTES} bytes when the file is that long.
 */
export function sniffMediaType(bytes: Buffer): ImageMediaType | undefined {
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'jpeg';
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png';
  const gif = ascii(bytes, 0, 6);
  if (gif === 'GIF87a' || gif === 'GIF89a') return 'gif';
  if (ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 12) === 'WEBP') return 'webp';
  if (startsWith(bytes, [0x49, 0x49, 0x2a, 0x00]) || startsWith(bytes, [0x4d, 0x4d, 0x00, 0x2a])) return 'tiff';
  if (isBmp(bytes)) return 'bmp';
  return sniffFtyp(bytes);
}
