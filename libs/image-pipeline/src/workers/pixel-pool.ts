import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { builtWorkerFile } from '@app/common';
import type { KernelName, KernelPayload, KernelResult } from '../kernels';
import type { PixelTask } from './pixel.worker';
import type { RawPixels } from './raw-pixels';

/**
 * Worker threads for JavaScript pixel work (tone mapping, deblocking, BMP and HEIC decoding), so that it
 * never blocks the event loop. One per core, at most 4; idle threads exit after a minute.
 */
export class PixelPool {
  private pool?: Piscina;

  constructor(private readonly threads = Math.min(4, Math.max(1, availableParallelism()))) {}

  /** Runs kernel `name` on a worker thread; the pixel buffers of the payload are moved, not copied. */
  async run<K extends KernelName>(name: K, payload: KernelPayload<K>): Promise<KernelResult<K>> {
    this.pool ??= new Piscina({
      filename: builtWorkerFile(__dirname, 'pixel.worker'),
      minThreads: 0,
      maxThreads: this.threads,
      idleTimeout: 60_000,
    });
    const task: PixelTask = { name, payload };
    return (await this.pool.run(task, { transferList: transferables(payload) })) as KernelResult<K>;
  }

  async close(): Promise<void> {
    await this.pool?.destroy();
    this.pool = undefined;
  }
}

/** The ArrayBuffers of the payload's pixel or byte arrays (moved to the worker without a copy). */
function transferables(payload: unknown): ArrayBuffer[] {
  const buffers = new Set<ArrayBuffer>();
  for (const value of Object.values(payload as Record<string, unknown>)) {
    const array = (value as RawPixels | undefined)?.data ?? value;
    if (array instanceof Uint8Array && array.byteOffset === 0 && array.buffer.byteLength === array.byteLength) {
      if (array.buffer instanceof ArrayBuffer) buffers.add(array.buffer);
    }
  }
  return [...buffers];
}
