import { describe, expect, it } from 'vitest';
import { enlargeInTiles, tileGrid, type Infer } from './tiles';

/** A stand-in network: each value repeated `scale` x `scale` times, plus its position's parity (to see offsets). */
const nearest =
  (scale: number): Infer =>
  (rgb, width, height) => {
    const out = new Float32Array(width * scale * height * scale * 3);
    for (let y = 0; y < height * scale; y++) {
      for (let x = 0; x < width * scale; x++) {
        for (let c = 0; c < 3; c++) {
          out[(y * width * scale + x) * 3 + c] = rgb[(Math.floor(y / scale) * width + Math.floor(x / scale)) * 3 + c];
        }
      }
    }
    return Promise.resolve(out);
  };

describe('tiles', () => {
  it('cover the image once with their cores, and read within it', () => {
    const tiles = tileGrid(100, 70, 32, 12);
    const covered = new Uint8Array(100 * 70);
    for (const tile of tiles) {
      for (let y = tile.y; y < tile.y + tile.height; y++)
        for (let x = tile.x; x < tile.x + tile.width; x++) covered[y * 100 + x]++;
      expect(tile.read.x).toBe(Math.max(0, tile.x - 12));
      expect(tile.read.x + tile.read.width).toBe(Math.min(100, tile.x + tile.width + 12));
      expect(tile.read.y + tile.read.height).toBeLessThanOrEqual(70);
    }
    expect(tiles).toHaveLength(4 * 3);
    expect(covered.every((count) => count === 1)).toBe(true);
  });

  it.each([2, 3])(
    'put every enlarged core at its place (%ix): the same as enlarging the whole image',
    async (scale) => {
      const width = 45;
      const height = 29;
      const rgb = Uint8Array.from({ length: width * height * 3 }, (_, i) => (i * 37) % 256);
      const image = { rgb, width, height, scale, margin: 5 };
      const tiled = await enlargeInTiles({ ...image, tile: 16 }, nearest(scale));
      const whole = await enlargeInTiles({ ...image, tile: 1000 }, nearest(scale));
      expect(tiled.length).toBe(width * scale * height * scale * 3);
      expect(Buffer.from(tiled).equals(Buffer.from(whole))).toBe(true);
      expect(tiled[(7 * scale * width * scale + 20 * scale) * 3 + 1]).toBe(rgb[(7 * width + 20) * 3 + 1]);
    },
  );

  it('rounds and clips the network values to 8 bits', async () => {
    const infer: Infer = () => Promise.resolve(Float32Array.from([-20, 127.6, 300, 0.4, 254.5, 255]));
    const out = await enlargeInTiles(
      { rgb: new Uint8Array(6), width: 2, height: 1, scale: 1, tile: 8, margin: 0 },
      infer,
    );
    expect([...out]).toEqual([0, 128, 255, 0, 255, 255]);
  });
});
