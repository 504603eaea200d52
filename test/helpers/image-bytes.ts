/**
 * Byte-level readers for what an encoder wrote into a file, so that e2e tests can check options that decoding
 * hides: TIFF (and EXIF) tags, the chunks of a WebP RIFF, the zlib stream and row filters of a PNG. Each reads
 * only the structure it names and throws on bytes that do not have it, so a test cannot pass on garbage.
 */
import { inflateSync } from 'node:zlib';
import sharp from 'sharp';

/**
 * A TIFF tag's values: numbers for the integer types and for the bytes of UNDEFINED (type 7, e.g. JPEGTables),
 * [numerator, denominator] pairs for RATIONAL (type 5).
 */
export type TiffValue = number[] | Array<[number, number]>;

/** TIFF field types this reader decodes: BYTE, SHORT, LONG, RATIONAL, UNDEFINED (others are skipped). */
const TYPE_SIZES: Readonly<Record<number, number>> = { 1: 1, 3: 2, 4: 4, 5: 8, 7: 1 };

/**
 * The tags of the first IFD of a TIFF structure, by tag number: a whole TIFF file, or an EXIF blob as sharp's
 * `metadata().exif` gives it (with or without the leading `Exif\0\0`). Both byte orders are read.
 * @throws Error when the bytes do not start with a TIFF header.
 */
export function readTiffTags(bytes: Buffer): Map<number, TiffValue> {
  const start = bytes.toString('latin1', 0, 6) === 'Exif\0\0' ? 6 : 0;
  const order = bytes.toString('latin1', start, start + 2);
  if (order !== 'II' && order !== 'MM')
    throw new Error(`not a TIFF header: ${bytes.subarray(start, start + 4).toString('hex')}`);
  const little = order === 'II';
  const u16 = (at: number) => (little ? bytes.readUInt16LE(start + at) : bytes.readUInt16BE(start + at));
  const u32 = (at: number) => (little ? bytes.readUInt32LE(start + at) : bytes.readUInt32BE(start + at));
  if (u16(2) !== 42) throw new Error('not a classic TIFF (magic 42)');
  const ifd = u32(4);
  const tags = new Map<number, TiffValue>();
  for (let entry = 0, count = u16(ifd); entry < count; entry++) {
    const at = ifd + 2 + entry * 12;
    const [tag, type, n] = [u16(at), u16(at + 2), u32(at + 4)];
    const size = TYPE_SIZES[type];
    if (size === undefined) continue;
    const values = size * n <= 4 ? at + 8 : u32(at + 8);
    const read = (i: number) => {
      const p = values + i * size;
      return size === 1 ? bytes[start + p] : size === 2 ? u16(p) : u32(p);
    };
    tags.set(
      tag,
      type === 5
        ? Array.from({ length: n }, (_, i) => [u32(values + i * 8), u32(values + i * 8 + 4)] as [number, number])
        : Array.from({ length: n }, (_, i) => read(i)),
    );
  }
  return tags;
}

/** TIFF tag numbers used by the tests. */
export const TIFF_TAG = {
  compression: 259,
  xResolution: 282,
  yResolution: 283,
  resolutionUnit: 296,
  /** The quantisation and Huffman tables shared by every JPEG-compressed strip (an abbreviated JPEG stream). */
  jpegTables: 347,
} as const;

/** TIFF compression tag values (TIFF 6.0 and its JPEG technote). */
export const TIFF_COMPRESSION = { none: 1, lzw: 5, jpeg: 7, deflate: 8 } as const;

/** The chunk ids of a WebP file, in order ('VP8X', 'ICCP', 'VP8 ', 'VP8L', 'EXIF', ...). */
export function webpChunks(bytes: Buffer): string[] {
  if (bytes.toString('latin1', 0, 4) !== 'RIFF' || bytes.toString('latin1', 8, 12) !== 'WEBP') {
    throw new Error('not a WebP RIFF');
  }
  const end = Math.min(bytes.length, 8 + bytes.readUInt32LE(4));
  const chunks: string[] = [];
  for (let at = 12; at + 8 <= end;) {
    const size = bytes.readUInt32LE(at + 4);
    chunks.push(bytes.toString('latin1', at, at + 4));
    at += 8 + size + (size & 1); // chunks are padded to an even size
  }
  return chunks;
}

export interface PngStream {
  /** FLEVEL of the zlib header (RFC 1950): 0 fastest, 1 fast, 2 default, 3 maximum compression. */
  zlibLevel: number;
  /** The filter type byte of every row (0 None, 1 Sub, 2 Up, 3 Average, 4 Paeth). */
  rowFilters: number[];
}

/** The zlib header level and row filters of a non-interlaced PNG, read from its concatenated IDAT chunks. */
export function readPngStream(bytes: Buffer): PngStream {
  if (bytes.readUInt32BE(0) !== 0x89504e47) throw new Error('not a PNG');
  const idat: Buffer[] = [];
  let width = 0;
  let bitsPerPixel = 0;
  for (let at = 8; at + 12 <= bytes.length;) {
    const length = bytes.readUInt32BE(at);
    const type = bytes.toString('latin1', at + 4, at + 8);
    const body = bytes.subarray(at + 8, at + 8 + length);
    if (type === 'IHDR') {
      width = body.readUInt32BE(0);
      const samples = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 }[body[9]] ?? 0;
      bitsPerPixel = samples * body[8];
      if (body[12] !== 0) throw new Error('interlaced PNGs are not read');
    }
    if (type === 'IDAT') idat.push(body);
    at += 12 + length;
  }
  const stream = Buffer.concat(idat);
  const rows = inflateSync(stream);
  const stride = 1 + Math.ceil((width * bitsPerPixel) / 8);
  const rowFilters: number[] = [];
  for (let at = 0; at < rows.length; at += stride) rowFilters.push(rows[at]);
  return { zlibLevel: stream[1] >> 6, rowFilters };
}

export interface RawImage {
  data: Buffer;
  width: number;
  height: number;
  channels: number;
}

/** Decodes encoded bytes (any format sharp reads) into interleaved 8-bit pixels, channels as stored. */
export async function decode(bytes: Buffer): Promise<RawImage> {
  const { data, info } = await sharp(bytes).raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: info.channels };
}

/** The channel values of pixel (x, y). */
export function pixelAt(image: RawImage, x: number, y: number): number[] {
  const offset = (Math.round(y) * image.width + Math.round(x)) * image.channels;
  return [...image.data.subarray(offset, offset + image.channels)];
}

/** The largest absolute difference between two colours, over the channels of the shorter. */
export function colourDistance(a: readonly number[], b: readonly number[]): number {
  let worst = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) worst = Math.max(worst, Math.abs(a[i] - b[i]));
  return worst;
}

/** The centre of each quadrant of a width x height image, in pixel coordinates. */
export function quadrantCentres(width: number, height: number) {
  const [left, right, top, bottom] = [width / 4, (3 * width) / 4, height / 4, (3 * height) / 4].map(Math.floor);
  return {
    topLeft: [left, top],
    topRight: [right, top],
    bottomLeft: [left, bottom],
    bottomRight: [right, bottom],
  } as const;
}
