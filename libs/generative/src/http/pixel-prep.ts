import { Piscina } from 'piscina';
import { builtWorkerFile } from '@app/common';
import type { PortImage, PortPixels } from '@app/image-pipeline';
import type { PrepTask } from './prep.worker';

/**
 * The HTTP adapters' pixel work (init composites, masks, PNG encoding: pixel-ops.ts) on worker threads of their
 * own, so that a generator's files are prepared off the event loop. Two threads at most, started on first use,
 * gone after ten idle seconds; closed at shutdown (GenerativeModule).
 */
let pool: Piscina | undefined;

async function run<T>(task: PrepTask): Promise<T> {
  pool ??= new Piscina({
    filename: builtWorkerFile(__dirname, 'prep.worker'),
    minThreads: 0,
    maxThreads: 2,
    idleTimeout: 10_000,
  });
  return (await pool.run(task)) as T;
}

export const pixelPrep = {
  png: async (pixels: PortPixels): Promise<Buffer> => Buffer.from(await run<Uint8Array>({ kind: 'png', pixels })),
  composite: (object: PortPixels, base: PortPixels | [number, number, number]): Promise<PortPixels> =>
    run({ kind: 'composite', object, base }),
  invert: (mask: PortPixels): Promise<PortPixels> => run({ kind: 'invert', mask }),
  alphaMaskPng: async (image: PortPixels, mask: PortPixels): Promise<Buffer> =>
    Buffer.from(await run<Uint8Array>({ kind: 'alpha-png', image, mask })),
};

/** A PortImage of pixels built by an adapter, its PNG encoded once, on demand, off the event loop. */
export function portImage(pixels: PortPixels): PortImage {
  let png: Promise<Buffer> | undefined;
  return { pixels, png: () => (png ??= pixelPrep.png(pixels)) };
}

export async function closePixelPrep(): Promise<void> {
  await pool?.destroy();
  pool = undefined;
}
