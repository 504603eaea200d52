/**
 * The quality a JPEG was saved with, read from its quantisation tables (DQT), and the artefact-removal
 * strength that quality calls for. Pure functions of the file's bytes: no decoding, no sharp.
 */

/** ITU-T T.81 Annex K, table K.1: the luminance quantisation table for quality 50, in natural (row) order. */
const ANNEX_K_LUMINANCE = [
  16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22, 29, 51,
  87, 80, 62, 18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92, 49, 64, 78, 87, 103, 121, 120, 101,
  72, 92, 95, 98, 112, 100, 103, 99,
];

/** The natural index of each coefficient in the order a DQT segment stores them (zig-zag). */
const ZIGZAG = [
  0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28,
  35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47,
  55, 62, 63,
];

const MARKER_SOI = 0xd8;
const MARKER_EOI = 0xd9;
const MARKER_SOS = 0xda;
const MARKER_DQT = 0xdb;

/** A quantisation table as stored: its id (0..3), its precision and its 64 steps in natural order. */
interface QuantTable {
  id: number;
  sixteenBit: boolean;
  steps: number[];
}

/**
 * The IJG quality (1..100) whose scaled Annex K luminance table is closest to the file's luminance table
 * (table 0, else the first one), or undefined for bytes that are not a JPEG or carry no table.
 * Encoders that use the IJG scaling (libjpeg, libjpeg-turbo, mozjpeg with its default table 0, so sharp)
 * are recovered exactly; for other tables (cameras, Photoshop) the result is the IJG quality with the
 * nearest table, a fair proxy for how coarsely the image was quantised.
 */
export function estimateJpegQuality(bytes: Uint8Array): number | undefined {
  const tables = readQuantTables(bytes);
  const luminance = tables.find((table) => table.id === 0) ?? tables[0];
  if (!luminance) return undefined;
  let best = 1;
  let bestError = Infinity;
  for (let quality = 1; quality <= 100; quality++) {
    const expected = ijgTable(quality, luminance.sixteenBit);
    let error = 0;
    for (let i = 0; i < 64; i++) error += Math.abs(luminance.steps[i] - expected[i]);
    // `<=`: on a tie the higher quality wins, so a table shared by several qualities does not read as worse.
    if (error <= bestError) {
      best = quality;
      bestError = error;
    }
  }
  return best;
}

/**
 * The artefact removal a JPEG of this IJG quality (1..100) needs; undefined for none (85 and up, or not a
 * JPEG). From running both strengths on sharp JPEGs of smooth synthetic scenes, a detailed photograph and
 * a graphic at qualities 10 to 95:
 * - 85 and up: both gain at most 0.2 dB PSNR (not visible), and the faint grid is easily confused with
 *   real edges that happen to line up: nothing.
 * - 50 to 84: `moderate` gains 0.1 to 0.4 dB on smooth content. `strong` gains at most 0.2 dB more but on
 *   the detailed photograph changes over 20% of the pixels by more than 2 levels for no gain: `moderate`.
 * - below 50: steps between blocks are whole levels and more (about 10 at quality 10); `strong` gains 0.6
 *   to 1.3 dB on smooth content where `moderate` gains 0.4 to 0.7: `strong`.
 */
export function decompressStrengthFor(quality: number | undefined): 'moderate' | 'strong' | undefined {
  if (quality === undefined || quality >= 85) return undefined;
  return quality >= 50 ? 'moderate' : 'strong';
}

/** The luminance table libjpeg's `jpeg_set_quality(quality, force_baseline)` writes, in natural order. */
function ijgTable(quality: number, sixteenBit: boolean): number[] {
  // jpeg_quality_scaling: integer division, as in libjpeg's C source.
  const scale = quality < 50 ? Math.floor(5000 / quality) : 200 - 2 * quality;
  const max = sixteenBit ? 32767 : 255;
  return ANNEX_K_LUMINANCE.map((base) => Math.min(max, Math.max(1, Math.floor((base * scale + 50) / 100))));
}

/** Every DQT table before the first scan (SOS); empty for bytes that do not start with a JPEG SOI marker. */
function readQuantTables(bytes: Uint8Array): QuantTable[] {
  const tables: QuantTable[] = [];
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== MARKER_SOI) return tables;
  let pos = 2;
  while (pos + 1 < bytes.length) {
    if (bytes[pos] !== 0xff) break; // not a marker: a corrupt header, keep what was read
    const marker = bytes[pos + 1];
    pos += 2;
    if (marker === 0xff) {
      pos -= 1; // a fill byte before the marker
      continue;
    }
    if (marker === MARKER_SOS || marker === MARKER_EOI) break;
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) continue; // markers without a length
    if (pos + 2 > bytes.length) break;
    const length = (bytes[pos] << 8) | bytes[pos + 1];
    const end = pos + length;
    if (length < 2 || end > bytes.length) break;
    if (marker === MARKER_DQT) readDqtSegment(bytes, pos + 2, end, tables);
    pos = end;
  }
  return tables;
}

/** The tables of one DQT segment's payload [start, end): each is Pq|Tq, then 64 steps of 8 or 16 bits. */
function readDqtSegment(bytes: Uint8Array, start: number, end: number, into: QuantTable[]): void {
  let pos = start;
  while (pos < end) {
    const sixteenBit = bytes[pos] >> 4 !== 0;
    const id = bytes[pos] & 0x0f;
    const size = sixteenBit ? 128 : 64;
    if (pos + 1 + size > end) return;
    const steps = new Array<number>(64);
    for (let i = 0; i < 64; i++) {
      const at = pos + 1 + (sixteenBit ? 2 * i : i);
      steps[ZIGZAG[i]] = sixteenBit ? (bytes[at] << 8) | bytes[at + 1] : bytes[at];
    }
    into.push({ id, sixteenBit, steps });
    pos += 1 + size;
  }
}
