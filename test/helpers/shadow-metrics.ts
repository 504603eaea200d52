/**
 * What a viewer sees of an object's shadow on a plain scene, measured from two renders of one request that differ
 * only in the backdrop's colour (white, and a dark grey): the object's own pixels are the same bytes in both, so
 * the pixels that differ are the backdrop, and the white one's darkening there is the shadow. The object must
 * have a hard-edged alpha (0 or 255), so that no blended edge is taken for shadow.
 */

export interface RawRgb {
  data: Uint8Array;
  width: number;
  height: number;
  channels: number;
}

export interface ShadowReport {
  /** Luminance of the far corners (the floor without shadow). */
  floor: number;
  /** The object's box on the canvas, inclusive. */
  box: { left: number; top: number; right: number; base: number };
  /** Mean darkening (levels) just under the footprint: rows 1..1.5 % of the object's size below its base. */
  contact: number;
  /**
   * The darkest mean over a square of 5 % of the object's size whose centre lies 5 % to 50 % of its size away from
   * it (the cast shadow, beyond the contact).
   */
  cast: number;
  /** The 99th percentile of the darkening within 5 % of its size beside the object above its lowest third. */
  climb: number;
}

const luminance = (image: RawRgb, i: number) =>
  0.2126 * image.data[i * image.channels] +
  0.7152 * image.data[i * image.channels + 1] +
  0.0722 * image.data[i * image.channels + 2];

/**
 * The object in two renders that differ only in the backdrop: 1 where every channel is within 1 level in both
 * (its own pixels), 0 elsewhere; and its box (inclusive; `base` -1 when there is none), and its lowest row per
 * column (-1 where the column is empty).
 */
export function objectOf(
  white: RawRgb,
  grey: RawRgb,
): { mask: Uint8Array; box: ShadowReport['box']; bottom: Int32Array } {
  const { width, height } = white;
  const mask = new Uint8Array(width * height);
  for (let i = 0; i < mask.length; i++) {
    let same = true;
    for (let c = 0; c < 3; c++)
      if (Math.abs(white.data[i * white.channels + c] - grey.data[i * grey.channels + c]) > 1) same = false;
    mask[i] = same ? 1 : 0;
  }
  const box = { left: width, top: height, right: -1, base: -1 };
  const bottom = new Int32Array(width).fill(-1);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      if (!mask[y * width + x]) continue;
      bottom[x] = y;
      box.left = Math.min(box.left, x);
      box.right = Math.max(box.right, x);
      box.top = Math.min(box.top, y);
      box.base = y;
    }
  return { mask, box, bottom };
}

export function measureShadow(white: RawRgb, grey: RawRgb): ShadowReport {
  const { width, height } = white;
  const { mask: object, box, bottom } = objectOf(white, grey);
  if (box.base < 0) throw new Error('no object found: the two renders differ everywhere');
  const objectHeight = box.base - box.top + 1;
  const size = Math.max(objectHeight, box.right - box.left + 1);
  const distance = distanceTo(object, width, height);
  const corners: number[] = [];
  for (const [cx, cy] of [
    [0, 0],
    [width - 10, 0],
    [0, height - 10],
    [width - 10, height - 10],
  ])
    for (let y = cy; y < cy + 10; y++) for (let x = cx; x < cx + 10; x++) corners.push(luminance(white, y * width + x));
  corners.sort((a, b) => a - b);
  const floor = corners[corners.length >> 1];
  const dark = (i: number) => floor - luminance(white, i);

  // the footprint: columns ending within 3 % of the object's height of its base, their middle 80 %
  let footLeft = width;
  let footRight = -1;
  for (let x = 0; x < width; x++)
    if (bottom[x] >= 0 && box.base - bottom[x] <= Math.max(1, objectHeight * 0.03)) {
      footLeft = Math.min(footLeft, x);
      footRight = Math.max(footRight, x);
    }
  const inset = Math.round((footRight - footLeft) * 0.1);
  let contactSum = 0;
  let contactCount = 0;
  const contactRows = Math.max(3, Math.round(size * 0.015));
  for (let y = box.base + 1; y <= Math.min(height - 1, box.base + contactRows); y++)
    for (let x = footLeft + inset; x <= footRight - inset; x++) {
      const i = y * width + x;
      if (object[i]) continue;
      contactSum += dark(i);
      contactCount += 1;
    }

  const side = Math.max(4, Math.round(size * 0.05));
  const stride = Math.max(1, side >> 2);
  let cast = 0;
  for (let y0 = 0; y0 + side <= height; y0 += stride)
    for (let x0 = 0; x0 + side <= width; x0 += stride) {
      const centre = distance[(y0 + (side >> 1)) * width + x0 + (side >> 1)];
      if (centre < size * 0.05 || centre > size / 2) continue;
      let sum = 0;
      let clear = true;
      for (let y = y0; y < y0 + side && clear; y++)
        for (let x = x0; x < x0 + side; x++) {
          const i = y * width + x;
          if (distance[i] < 2) {
            clear = false;
            break;
          }
          sum += dark(i);
        }
      if (clear) cast = Math.max(cast, sum / (side * side));
    }

  const beside: number[] = [];
  for (let y = 0; y < box.base - objectHeight / 3; y++)
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      // 3 px off: the object's resampled edge is not the backdrop
      if (distance[i] >= 3 && distance[i] <= size * 0.05) beside.push(dark(i));
    }
  beside.sort((a, b) => b - a);
  return {
    floor,
    box,
    contact: contactCount > 0 ? contactSum / contactCount : 0,
    cast,
    climb: beside.length > 0 ? beside[Math.floor(beside.length * 0.01)] : 0,
  };
}

/** Each pixel's distance (chamfer 1, sqrt 2) to the nearest pixel of `mask`. */
function distanceTo(mask: Uint8Array, width: number, height: number): Float32Array {
  const d = new Float32Array(width * height).fill(1e9);
  for (let i = 0; i < d.length; i++) if (mask[i]) d[i] = 0;
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      if (x > 0) d[i] = Math.min(d[i], d[i - 1] + 1);
      if (y > 0) {
        d[i] = Math.min(d[i], d[i - width] + 1);
        if (x > 0) d[i] = Math.min(d[i], d[i - width - 1] + Math.SQRT2);
        if (x < width - 1) d[i] = Math.min(d[i], d[i - width + 1] + Math.SQRT2);
      }
    }
  for (let y = height - 1; y >= 0; y--)
    for (let x = width - 1; x >= 0; x--) {
      const i = y * width + x;
      if (x < width - 1) d[i] = Math.min(d[i], d[i + 1] + 1);
      if (y < height - 1) {
        d[i] = Math.min(d[i], d[i + width] + 1);
        if (x < width - 1) d[i] = Math.min(d[i], d[i + width + 1] + Math.SQRT2);
        if (x > 0) d[i] = Math.min(d[i], d[i + width - 1] + Math.SQRT2);
      }
    }
  return d;
}
