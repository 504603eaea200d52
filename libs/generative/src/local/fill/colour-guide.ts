import type { PortBox } from '@app/image-pipeline';
import type { OriginalStats } from './original-stats';

/**
 * The large-scale colour the new area should have at each canvas pixel: the mean of the original over a window
 * at its nearest pixel q that widens with the distance d from the original,
 *
 *   target(p) = mean of the original over |x - qx| <= r, |y - qy| <= r, r = radius + d,
 *
 * the window clipped to the band of the original along the edge(s) p lies beyond (15% of the original, at least
 * 2 * radius deep). So next to the original the target is the border's own local colour, and it fades to the
 * band's mean (over an ever longer stretch of the edge) far from it: a sky's gradient or a table's colour carries
 * on, a small object at the edge is averaged away. Patches are chosen towards it (outpaint-fill.ts) and the
 * filled area's low frequencies are set to it (low-frequency.ts). O(1) per pixel (summed-area tables).
 */
export class ColourGuide {
  private readonly band: { x: number; y: number };

  constructor(
    private readonly stats: OriginalStats,
    private readonly inner: PortBox,
    private readonly radius: number,
    private readonly fade: number,
  ) {
    this.band = {
      x: Math.min(inner.width, Math.max(radius * 2, Math.round(inner.width * 0.15))),
      y: Math.min(inner.height, Math.max(radius * 2, Math.round(inner.height * 0.15))),
    };
  }

  /** exp(-d / fade) at canvas pixel (x, y), d its distance to the original: 1 on it, towards 0 far from it. */
  nearness(x: number, y: number): number {
    const { inner } = this;
    const dx = Math.max(inner.left - x, 0, x - (inner.left + inner.width - 1));
    const dy = Math.max(inner.top - y, 0, y - (inner.top + inner.height - 1));
    return Math.exp(-Math.sqrt(dx * dx + dy * dy) / this.fade);
  }

  /** The target colour at canvas pixel (x, y), written into `out` (0..255 per channel). */
  target(x: number, y: number, out: Float64Array): Float64Array {
    const { inner, stats, band } = this;
    const right = inner.left + inner.width;
    const bottom = inner.top + inner.height;
    const dx = x < inner.left ? inner.left - x : x >= right ? x - right + 1 : 0;
    const dy = y < inner.top ? inner.top - y : y >= bottom ? y - bottom + 1 : 0;
    const r = this.radius + Math.round(Math.sqrt(dx * dx + dy * dy));
    const qx = Math.min(Math.max(x, inner.left), right - 1) - inner.left;
    const qy = Math.min(Math.max(y, inner.top), bottom - 1) - inner.top;
    let x0 = Math.max(0, qx - r);
    let x1 = Math.min(stats.width, qx + r + 1);
    let y0 = Math.max(0, qy - r);
    let y1 = Math.min(stats.height, qy + r + 1);
    if (x < inner.left) x1 = Math.min(x1, band.x);
    if (x >= right) x0 = Math.max(x0, stats.width - band.x);
    if (y < inner.top) y1 = Math.min(y1, band.y);
    if (y >= bottom) y0 = Math.max(y0, stats.height - band.y);
    return stats.mean(x0, y0, x1 - x0, y1 - y0, out);
  }
}
