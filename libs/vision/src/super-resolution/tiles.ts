/**
 * Tiling of a super-resolution: the image is enlarged one square tile at a time, so the network's working memory
 * depends on the tile, not on the image. Each tile is read with a margin on every side (clipped at the image's
 * edge) and only its core is kept: with a margin of at least the network's receptive radius every kept pixel saw
 * the same neighbourhood as in a run on the whole image, so tiles meet without a seam (the spec compares both).
 */

/** A tile's core (kept) and the region read for it, in input pixels. */
export interface Tile {
  x: number;
  y: number;
  width: number;
  height: number;
  read: { x: number; y: number; width: number; height: number };
}

/** The tiles of a `width` x `height` image: cores of `side` pixels (smaller at the right and bottom edges). */
export function tileGrid(width: number, height: number, side: number, margin: number): Tile[] {
  const tiles: Tile[] = [];
  for (let y = 0; y < height; y += side) {
    for (let x = 0; x < width; x += side) {
      const core = { x, y, width: Math.min(side, width - x), height: Math.min(side, height - y) };
      const left = Math.max(0, x - margin);
      const top = Math.max(0, y - margin);
      const right = Math.min(width, x + core.width + margin);
      const bottom = Math.min(height, y + core.height + margin);
      tiles.push({ ...core, read: { x: left, y: top, width: right - left, height: bottom - top } });
    }
  }
  return tiles;
}

/** One network run: `width` x `height` RGB values (0..255, floats) in, `scale` times larger RGB values out. */
export type Infer = (rgb: Float32Array, width: number, height: number) => Promise<Float32Array>;

export interface Enlargement {
  /** 8-bit RGB, interleaved, rows top to bottom. */
  rgb: Uint8Array;
  width: number;
  height: number;
  scale: number;
  tile: number;
  margin: number;
}

/**
 * `rgb` (8-bit, `width` x `height`) enlarged `scale` times by `infer`, tile by tile: the result, 8-bit RGB
 * (values rounded and clipped to 0..255).
 */
export async function enlargeInTiles(image: Enlargement, infer: Infer): Promise<Uint8Array> {
  const { rgb, width, height, scale, tile, margin } = image;
  const outWidth = width * scale;
  const result = new Uint8Array(outWidth * height * scale * 3);
  for (const { x, y, width: w, height: h, read } of tileGrid(width, height, tile, margin)) {
    const input = new Float32Array(read.width * read.height * 3);
    for (let row = 0; row < read.height; row++) {
      const from = ((read.y + row) * width + read.x) * 3;
      input.set(rgb.subarray(from, from + read.width * 3), row * read.width * 3);
    }
    const output = await infer(input, read.width, read.height);
    const readWidth = read.width * scale;
    const offsetX = (x - read.x) * scale;
    const offsetY = (y - read.y) * scale;
    for (let row = 0; row < h * scale; row++) {
      const from = ((offsetY + row) * readWidth + offsetX) * 3;
      const to = ((y * scale + row) * outWidth + x * scale) * 3;
      for (let i = 0; i < w * scale * 3; i++) {
        const value = output[from + i];
        result[to + i] = value <= 0 ? 0 : value >= 255 ? 255 : Math.round(value);
      }
    }
  }
  return result;
}
