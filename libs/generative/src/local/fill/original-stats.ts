import type { PortBox } from '@app/image-pipeline';

/** Rec. 601 luma of the pixel at byte offset `at` of 3-channel data, 0..255. */
export function lumaOf(data: Uint8Array, at: number): number {
  return 0.299 * data[at] + 0.587 * data[at + 1] + 0.114 * data[at + 2];
}

/**
 * Summed-area tables (Crow, 1984) of the original's three channels and of its squared luma, for the mean colour
 * and the luma standard deviation of any rectangle of it in O(1). Coordinates are relative to `inner`.
 */
export class OriginalStats {
  readonly width: number;
  readonly height: number;
  private readonly tables: [Float64Array, Float64Array, Float64Array, Float64Array];
  private readonly stride: number;

  constructor(data: Uint8Array, canvasWidth: number, inner: PortBox) {
    this.width = inner.width;
    this.height = inner.height;
    this.stride = inner.width + 1;
    const size = this.stride * (inner.height + 1);
    this.tables = [new Float64Array(size), new Float64Array(size), new Float64Array(size), new Float64Array(size)];
    const [r, g, b, squares] = this.tables;
    for (let y = 0; y < inner.height; y++) {
      let rowR = 0;
      let rowG = 0;
      let rowB = 0;
      let rowSquares = 0;
      const from = ((inner.top + y) * canvasWidth + inner.left) * 3;
      for (let x = 0; x < inner.width; x++) {
        const at = from + x * 3;
        rowR += data[at];
        rowG += data[at + 1];
        rowB += data[at + 2];
        const luma = lumaOf(data, at);
        rowSquares += luma * luma;
        const cell = (y + 1) * this.stride + x + 1;
        const above = cell - this.stride;
        r[cell] = r[above] + rowR;
        g[cell] = g[above] + rowG;
        b[cell] = b[above] + rowB;
        squares[cell] = squares[above] + rowSquares;
      }
    }
  }

  /** The mean colour of the w x h rectangle at (x, y), written into `out`. */
  mean(x: number, y: number, w: number, h: number, out: Float64Array): Float64Array {
    const n = w * h;
    for (let c = 0; c < 3; c++) out[c] = this.rect(this.tables[c], x, y, w, h) / n;
    return out;
  }

  /** The luma standard deviation over the w x h rectangle at (x, y). */
  deviation(x: number, y: number, w: number, h: number): number {
    const n = w * h;
    const [r, g, b, squares] = this.tables;
    const mean =
      (0.299 * this.rect(r, x, y, w, h) + 0.587 * this.rect(g, x, y, w, h) + 0.114 * this.rect(b, x, y, w, h)) / n;
    return Math.sqrt(Math.max(0, this.rect(squares, x, y, w, h) / n - mean * mean));
  }

  private rect(table: Float64Array, x: number, y: number, w: number, h: number): number {
    const s = this.stride;
    return table[(y + h) * s + x + w] - table[y * s + x + w] - table[(y + h) * s + x] + table[y * s + x];
  }
}
