export { alphaMetrics, alphaOf, maskIoU } from '../fixtures/composites/mask-iou.mjs';

/**
 * How much of a flat background's colour is left at an object's edge after removal: the band is the object's
 * opaque pixels (truth >= 250, result alpha >= 64) within 3 px of its background, where the object's own colour
 * differs from the background's (else a leak cannot be told apart); a pixel leaks when the result is nearer the
 * old background than the object's own colour (10 levels of slack).
 */
export function backgroundLeak(
  rgba: ArrayLike<number>,
  truth: ArrayLike<number>,
  colours: ArrayLike<number>,
  flat: ArrayLike<number>,
  { width, height }: { width: number; height: number },
): { band: number; leaked: number } {
  const distance = (data: ArrayLike<number>, i: number, rgb: ArrayLike<number>, j = 0) =>
    Math.hypot(data[i] - rgb[j], data[i + 1] - rgb[j + 1], data[i + 2] - rgb[j + 2]);
  let band = 0;
  let leaked = 0;
  for (let y = 3; y < height - 3; y++) {
    for (let x = 3; x < width - 3; x++) {
      const i = y * width + x;
      if (truth[i] < 250 || rgba[i * 4 + 3] < 64) continue;
      if (![-3, 3].some((d) => truth[i + d] < 128 || truth[i + d * width] < 128)) continue;
      if (distance(colours, i * 3, flat) < 60) continue;
      band++;
      if (distance(rgba, i * 4, flat) < distance(rgba, i * 4, colours, i * 3) - 10) leaked++;
    }
  }
  return { band, leaked };
}
