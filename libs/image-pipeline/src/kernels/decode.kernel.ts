/**
 * Decoders for the two input formats sharp's prebuilt libvips cannot read: BMP (no loader) and HEVC-coded
 * HEIC (libheif without an HEVC decoder). They run on the pixel worker threads; the probe has already checked
 * the size against the pixel limit, and each decoder checks it again from the header before allocating.
 */
import decodeBmp from 'decode-bmp';
import { createRequire } from 'node:module';
import type { RawPixels } from '../workers/raw-pixels';

/** Why a BMP header was refused: a variant Atelier does not decode, or a header that makes no sense. */
export class BmpHeaderError extends Error {
  override readonly name = 'BmpHeaderError';

  constructor(
    readonly reason: 'unsupported' | 'corrupt',
    message: string,
  ) {
    super(message);
  }
}

/** What the decoder needs from a BMP header (file header + BITMAPINFOHEADER or one of its V2..V5 successors). */
export interface BmpHeader {
  /** Pixels, > 0. */
  width: number;
  /** Pixels, > 0 (the header stores a negative height for top-down rows). */
  height: number;
  topDown: boolean;
  /** 1, 4, 8 (palette), 24 or 32. */
  bitsPerPixel: number;
  /** True for 32-bit pixels whose fourth byte may be alpha (BI_RGB, or bitfields with an alpha mask). */
  hasAlpha: boolean;
  /** Byte offsets in the file of the colour table (4 bytes an entry) and of the first stored row. */
  paletteOffset: number;
  paletteEntries: number;
  pixelOffset: number;
  /** Bytes per stored row, padded to 4. */
  stride: number;
}

const BI_RGB = 0;
const BI_BITFIELDS = 3;
const BI_ALPHABITFIELDS = 6;
const COMPRESSION_NAMES: Readonly<Record<number, string>> = { 1: 'RLE8', 2: 'RLE4', 4: 'JPEG', 5: 'PNG' };
/** BITMAPINFOHEADER and its successors V2 (52), V3 (56), V4 (108) and V5 (124), which share its first 40 bytes. */
const INFO_HEADER_SIZES = new Set([40, 52, 56, 108, 124]);
/** The only 32-bit layout decode-bmp reads: bytes B, G, R, then alpha (or unused). */
const BGRA_MASKS = [0x00ff0000, 0x0000ff00, 0x000000ff] as const;

/**
 * Reads the header of a BMP file (`bytes` from its first byte). Throws {@link BmpHeaderError}: `unsupported`
 * for OS/2 headers, 16-bit pixels, RLE/JPEG/PNG compression and unusual bitfield masks; `corrupt` for a
 * header that is cut short or declares no pixels.
 */
export function readBmpHeader(bytes: Uint8Array): BmpHeader {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 18) throw new BmpHeaderError('corrupt', 'BMP header is cut short');
  const infoSize = view.getUint32(14, true);
  if (!INFO_HEADER_SIZES.has(infoSize)) {
    throw new BmpHeaderError('unsupported', `BMP with a ${infoSize}-byte (OS/2) info header is not supported`);
  }
  if (bytes.length < 14 + infoSize) throw new BmpHeaderError('corrupt', 'BMP header is cut short');
  const width = view.getInt32(18, true);
  const storedHeight = view.getInt32(22, true);
  const bitsPerPixel = view.getUint16(28, true);
  const compression = view.getUint32(30, true);
  if (width <= 0 || storedHeight === 0 || storedHeight === -0x80000000) {
    throw new BmpHeaderError('corrupt', `BMP header declares ${width} x ${storedHeight} pixels`);
  }
  const bitfields = compression === BI_BITFIELDS || compression === BI_ALPHABITFIELDS;
  if (![1, 4, 8, 24, 32].includes(bitsPerPixel) || !(compression === BI_RGB || (bitfields && bitsPerPixel === 32))) {
    const coding = COMPRESSION_NAMES[compression] ?? (bitfields ? 'bitfields' : `compression ${compression}`);
    throw new BmpHeaderError('unsupported', `BMP with ${bitsPerPixel} bits per pixel (${coding}) is not supported`);
  }
  // A plain 40-byte header is followed by its masks (3, or 4 with alpha); later headers hold them inside.
  const trailingMasks = infoSize === 40 && bitfields ? (compression === BI_ALPHABITFIELDS ? 16 : 12) : 0;
  const masks = bitfields ? readMasks(view, infoSize, compression) : undefined;
  if (masks && BGRA_MASKS.some((mask, i) => masks[i] !== mask)) {
    throw new BmpHeaderError('unsupported', 'BMP with bitfield masks other than BGRA is not supported');
  }
  if (masks && masks[3] !== 0 && masks[3] !== 0xff000000) {
    throw new BmpHeaderError('unsupported', 'BMP with an alpha mask other than the top byte is not supported');
  }
  const paletteOffset = 14 + infoSize + trailingMasks;
  const used = view.getUint32(46, true);
  const paletteEntries = bitsPerPixel <= 8 ? (used > 0 && used < 2 ** bitsPerPixel ? used : 2 ** bitsPerPixel) : 0;
  const pixelOffset = view.getUint32(10, true);
  if (pixelOffset < paletteOffset + paletteEntries * 4) {
    throw new BmpHeaderError('corrupt', 'BMP pixel data overlaps its header');
  }
  return {
    width,
    height: Math.abs(storedHeight),
    topDown: storedHeight < 0,
    bitsPerPixel,
    hasAlpha: bitsPerPixel === 32 && (masks === undefined || masks[3] !== 0),
    paletteOffset,
    paletteEntries,
    pixelOffset,
    stride: Math.ceil((width * bitsPerPixel) / 32) * 4,
  };
}

/** Red, green, blue and alpha masks (alpha 0 when the header has none). */
function readMasks(view: DataView, infoSize: number, compression: number): number[] {
  const count = infoSize >= 56 || compression === BI_ALPHABITFIELDS ? 4 : 3;
  if (view.byteLength < 54 + count * 4) throw new BmpHeaderError('corrupt', 'BMP bitfield masks are cut short');
  const masks = Array.from({ length: count }, (_, i) => view.getUint32(54 + i * 4, true));
  return count === 4 ? masks : [...masks, 0];
}

/** Refuses a width x height over `maxPixels` before anything that size is allocated. */
function checkPixels(format: string, width: number, height: number, maxPixels: number | undefined): void {
  if (maxPixels !== undefined && width * height > maxPixels) {
    throw new Error(`${format} of ${width} x ${height} pixels exceeds the limit of ${maxPixels} pixels`);
  }
}

/**
 * Decodes a BMP (1/4/8-bit palette, 24-bit, 32-bit) to upright 8-bit pixels: 3 channels (RGB), or 4 (RGBA)
 * when the header allows alpha (`BmpHeader.hasAlpha`, as the probe reports it). A 32-bit image whose alpha
 * bytes are all 0 is opaque, as browsers read it: writers that ignore alpha leave those bytes 0.
 * `maxPixels` (optional) refuses a larger image before decoding. Throws on truncated pixel data.
 */
export function decodeBmpKernel(payload: { bytes: Uint8Array; maxPixels?: number }): RawPixels {
  const header = readBmpHeader(payload.bytes);
  const { width, height } = header;
  checkPixels('BMP', width, height, payload.maxPixels);
  const rgba = decodeBmp(canonicalBmp(payload.bytes, header)).data;
  const data = new Uint8Array(rgba.buffer, rgba.byteOffset, rgba.byteLength);
  if (!header.hasAlpha) return { data: dropAlpha(data), width, height, channels: 3 };
  if (isAlphaAllZero(data)) for (let i = 3; i < data.length; i += 4) data[i] = 255;
  return { data, width, height, channels: 4 };
}

/**
 * The BMP as decode-bmp reads it: a 40-byte BITMAPINFOHEADER, BI_RGB, bottom-up rows right after the colour
 * table. decode-bmp ignores the pixel offset, the V4/V5 header fields, negative (top-down) heights and the
 * masks that follow a 40-byte header, so each file is rewritten into that one form (a copy of its pixel rows,
 * reversed when top-down).
 */
function canonicalBmp(bytes: Uint8Array, header: BmpHeader): Uint8Array {
  const { width, height, stride, pixelOffset, paletteEntries } = header;
  if (pixelOffset + stride * height > bytes.length) throw new Error('BMP pixel data is cut short');
  const palette = bytes.subarray(header.paletteOffset, header.paletteOffset + paletteEntries * 4);
  const rowsAt = 54 + palette.length;
  const out = new Uint8Array(rowsAt + stride * height);
  const view = new DataView(out.buffer);
  out.set([0x42, 0x4d]);
  view.setUint32(2, out.length, true);
  view.setUint32(10, rowsAt, true);
  view.setUint32(14, 40, true);
  view.setInt32(18, width, true);
  view.setInt32(22, height, true);
  view.setUint16(26, 1, true);
  view.setUint16(28, header.bitsPerPixel, true);
  view.setUint32(46, paletteEntries, true); // decode-bmp takes any non-zero count to mean "palette image"
  out.set(palette, 54);
  const rows = bytes.subarray(pixelOffset, pixelOffset + stride * height);
  if (!header.topDown) out.set(rows, rowsAt);
  else
    for (let y = 0; y < height; y++)
      out.set(rows.subarray(y * stride, (y + 1) * stride), rowsAt + (height - 1 - y) * stride);
  return out;
}

function isAlphaAllZero(rgba: Uint8Array): boolean {
  for (let i = 3; i < rgba.length; i += 4) if (rgba[i] !== 0) return false;
  return true;
}

function isOpaque(rgba: Uint8Array): boolean {
  for (let i = 3; i < rgba.length; i += 4) if (rgba[i] !== 255) return false;
  return true;
}

/** RGBA to a new RGB array. */
function dropAlpha(rgba: Uint8Array): Uint8Array {
  const rgb = new Uint8Array((rgba.length / 4) * 3);
  for (let source = 0, target = 0; source < rgba.length; source += 4, target += 3) {
    rgb[target] = rgba[source];
    rgb[target + 1] = rgba[source + 1];
    rgb[target + 2] = rgba[source + 2];
  }
  return rgb;
}

/** heic-decode's API (it ships no type declarations). */
interface HeicImage {
  width: number;
  height: number;
  decode(): Promise<{ width: number; height: number; data: Uint8ClampedArray }>;
}
interface HeicDecode {
  all(input: { buffer: Uint8Array }): Promise<HeicImage[] & { dispose(): void }>;
}

// Loaded with require: the package has no types, and a declaration file would sit outside this module.
const heicDecode = createRequire(__filename)('heic-decode') as HeicDecode;

/** Major brands heic-decode accepts; it refuses others (`avif`, `heim`, ...) before libheif sees the file. */
const HEIC_DECODE_BRANDS = new Set(['mif1', 'msf1', 'heic', 'heix', 'hevc', 'hevx']);
const MIF1 = [0x6d, 0x69, 0x66, 0x31];

export interface HeicKernelPayload {
  /** The HEIC file; its major brand may be rewritten in place (see decodeHeicKernel). */
  bytes: Uint8Array;
  /** Index of the image to decode among the top-level images (`ImageProbe.primaryImage`); default 0. */
  image?: number;
  /** Keep the alpha channel (`ImageProbe.hasAlpha`); by default it is kept unless every pixel is opaque. */
  alpha?: boolean;
  /** Refuses a larger image (pixels) before decoding it. */
  maxPixels?: number;
}

/**
 * Decodes one image of a HEIC file (libheif compiled to WebAssembly, through heic-decode) to 8-bit RGB or
 * RGBA. libheif applies the container's `irot`/`imir`/`clap` transforms, so the pixels come out as displayed.
 * heic-decode's own default takes the first top-level image, which is not always the primary one: the caller
 * names it (`image`). A major brand heic-decode refuses is overwritten with the generic `mif1` (libheif goes by
 * the codec, and the probe has found HEVC), so an HEVC file branded e.g. `heim` or `avif` still decodes.
 */
export async function decodeHeicKernel(payload: HeicKernelPayload): Promise<RawPixels> {
  const { bytes } = payload;
  const major = String.fromCharCode(...bytes.subarray(8, 12));
  if (!HEIC_DECODE_BRANDS.has(major)) bytes.set(MIF1, 8);
  const images = await heicDecode.all({ buffer: bytes });
  try {
    const index = payload.image ?? 0;
    const image = images[index];
    if (!image) throw new Error(`HEIC has ${images.length} top-level images, not an image ${index}`);
    checkPixels('HEIC', image.width, image.height, payload.maxPixels);
    const { width, height, data: clamped } = await image.decode();
    const rgba = new Uint8Array(clamped.buffer, clamped.byteOffset, clamped.byteLength);
    const alpha = payload.alpha ?? !isOpaque(rgba);
    return alpha ? { data: rgba, width, height, channels: 4 } : { data: dropAlpha(rgba), width, height, channels: 3 };
  } finally {
    images.dispose();
  }
}
