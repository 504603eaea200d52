/** Interleaved 8-bit pixels as sharp's `.raw()` gives them and `sharp(data, { raw })` takes them back. */
export interface RawPixels {
  data: Uint8Array;
  width: number;
  height: number;
  /** 1 (grey), 2 (grey + alpha), 3 (RGB) or 4 (RGBA). */
  channels: number;
}
