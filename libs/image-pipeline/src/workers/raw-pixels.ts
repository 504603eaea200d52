/** Interleaved 8-bit pixels as sharp's `.raw()` gives them and `sharp(data, { raw })` takes them back. */
export interface RawPixels {
  data: Uint8Array;
  width: number;
  height: number;
  /** 1 (grey), 2 (grey + alpha), 3 (RGB) or 4 (RGBA). */
  channels: number;
}

/** The pixels of `pixels` inside a box (its first column and row, and its size): a new image. */
export function cropPixels(
  pixels: RawPixels,
  box: { left: number; top: number; width: number; height: number },
): RawPixels {
  const { width, channels, data } = pixels;
  const out = new Uint8Array(box.width * box.height * channels);
  const row = box.width * channels;
  for (let y = 0; y < box.height; y++) {
    const from = ((box.top + y) * width + box.left) * channels;
    out.set(data.subarray(from, from + row), y * row);
  }
  return { data: out, width: box.width, height: box.height, channels };
}

/**
 * `part` (1 channel) placed at (`left`, `top`) in a new `width` x `height` plane of `fill`: the inverse of
 * {@link cropPixels} for a mask or an alpha.
 */
export function placePlane(
  part: RawPixels,
  left: number,
  top: number,
  width: number,
  height: number,
  fill = 0,
): Uint8Array {
  const out = new Uint8Array(width * height);
  if (fill !== 0) out.fill(fill);
  for (let y = 0; y < part.height; y++) {
    out.set(part.data.subarray(y * part.width, (y + 1) * part.width), (top + y) * width + left);
  }
  return out;
}
