import { afterAll, describe, expect, it } from 'vitest';
import { encodeBmp } from '../../../../test/fixtures/images';
import { PixelPool } from './pixel-pool';

const pool = new PixelPool(2);
afterAll(() => pool.close());

describe('PixelPool (the compiled worker, as the service runs it)', () => {
  it('runs a kernel on a worker thread and returns its pixels', async () => {
    const pixels = Buffer.alloc(4 * 2 * 3);
    pixels.set([255, 0, 0], 0); // top-left red (rows given top-down)
    const bmp = encodeBmp(pixels, { width: 4, height: 2, channels: 3, bits: 24, topDown: true });
    const bytes = new Uint8Array(bmp);
    const result = await pool.run('decode-bmp', { bytes });
    expect([result.width, result.height, result.channels]).toEqual([4, 2, 3]);
    expect([...result.data.subarray(0, 3)]).toEqual([255, 0, 0]);
    // the input was moved to the worker, not copied
    expect(bytes.byteLength).toBe(0);
  });

  it('reports a kernel failure as a rejection', async () => {
    await expect(pool.run('decode-bmp', { bytes: new Uint8Array([1, 2, 3]) })).rejects.toThrow();
  });
});
