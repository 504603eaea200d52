/**
 * Binary morphology on masks (1 byte a pixel, non-zero = set): the dilation by a square window, separable, in two
 * passes per line that track the distance to the nearest set pixel on each side, so the work per pixel is constant
 * whatever the radius and nothing is allocated per line; columns are swept a row at a time, in memory order.
 */

/** 1 where a set pixel of `mask` lies within `radius` pixels (a (2r+1)-square window), else 0; a new mask. */
export function dilate(mask: Uint8Array, width: number, height: number, radius: number): Uint8Array {
  const rows = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) dilateLine(mask, rows, y * width, width, radius);
  const out = new Uint8Array(width * height);
  dilateColumns(rows, out, width, height, radius);
  return out;
}

/** The erosion: 1 where every pixel within `radius` (inside the image) is set. */
export function erode(mask: Uint8Array, width: number, height: number, radius: number): Uint8Array {
  const grown = dilate(invert(mask), width, height, radius);
  for (let i = 0; i < grown.length; i++) grown[i] = grown[i] ? 0 : 1;
  return grown;
}

/** The tight box of the pixels for which `isSet(value)` holds, or undefined when there are none. */
export function setBox(
  values: ArrayLike<number>,
  width: number,
  height: number,
  isSet: (value: number) => boolean = (value) => value !== 0,
): { left: number; top: number; width: number; height: number } | undefined {
  let left = width;
  let right = -1;
  let top = height;
  let bottom = -1;
  for (let y = 0; y < height; y++) {
    for (let x = 0, i = y * width; x < width; x++, i++) {
      if (!isSet(values[i])) continue;
      if (x < left) left = x;
      if (x > right) right = x;
      if (y < top) top = y;
      bottom = y;
    }
  }
  return right < 0 ? undefined : { left, top, width: right - left + 1, height: bottom - top + 1 };
}

/**
 * The box of `mask`'s set pixels widened by `pad` (clipped to the image), its corner on a multiple of `align`
 * (so that a grid of cells that size over the box lines up with the image's); the whole image when none is set.
 */
export function maskBox(mask: Uint8Array, width: number, height: number, pad: number, align = 1) {
  const tight = setBox(mask, width, height);
  return tight ? padBox(tight, width, height, pad, align) : { left: 0, top: 0, width, height };
}

/** `box` widened by `pad` on every side and clipped to `width` x `height`, its corner on a multiple of `align`. */
export function padBox(
  box: { left: number; top: number; width: number; height: number },
  width: number,
  height: number,
  pad: number,
  align = 1,
) {
  const x0 = Math.max(0, Math.floor((box.left - pad) / align) * align);
  const y0 = Math.max(0, Math.floor((box.top - pad) / align) * align);
  const x1 = Math.min(width, box.left + box.width + pad);
  const y1 = Math.min(height, box.top + box.height + pad);
  return { left: x0, top: y0, width: x1 - x0, height: y1 - y0 };
}

/** 1 where `mask` is not set, else 0; a new mask. */
export function invert(mask: Uint8Array): Uint8Array {
  const out = new Uint8Array(mask.length);
  for (let i = 0; i < out.length; i++) out[i] = mask[i] ? 0 : 1;
  return out;
}

/** One row (`length` pixels from `start`) of `src` dilated by `radius` into `dst`. */
function dilateLine(src: Uint8Array, dst: Uint8Array, start: number, length: number, radius: number) {
  let since = radius + 1;
  for (let at = start, end = start + length; at < end; at++) {
    since = src[at] ? 0 : since + 1;
    dst[at] = since <= radius ? 1 : 0;
  }
  since = radius + 1;
  for (let at = start + length - 1; at >= start; at--) {
    since = src[at] ? 0 : since + 1;
    if (since <= radius) dst[at] = 1;
  }
}

/**
 * Every column of `src` dilated by `radius` into `dst`, swept a row at a time (down, then up) with each column's
 * distance to its nearest set pixel: the memory is read in order, not a column's stride apart.
 */
function dilateColumns(src: Uint8Array, dst: Uint8Array, width: number, height: number, radius: number) {
  const since = new Int32Array(width).fill(radius + 1);
  for (let y = 0; y < height; y++) {
    for (let x = 0, at = y * width; x < width; x++, at++) {
      since[x] = src[at] ? 0 : since[x] + 1;
      dst[at] = since[x] <= radius ? 1 : 0;
    }
  }
  since.fill(radius + 1);
  for (let y = height - 1; y >= 0; y--) {
    for (let x = 0, at = y * width; x < width; x++, at++) {
      since[x] = src[at] ? 0 : since[x] + 1;
      if (since[x] <= radius) dst[at] = 1;
    }
  }
}
