import { Piscina } from 'piscina';
import { KERNELS, type KernelName } from '../kernels';
import type { RawPixels } from './raw-pixels';

export interface PixelTask {
  name: KernelName;
  payload: unknown;
}

function isRawPixels(value: unknown): value is RawPixels {
  return typeof value === 'object' && value !== null && (value as RawPixels).data instanceof Uint8Array;
}

/** The buffers of a result that is pixels, or an object whose members are (a matte and its maps). */
function pixelBuffers(result: unknown): ArrayBuffer[] {
  if (isRawPixels(result)) return [result.data.buffer as ArrayBuffer];
  if (typeof result !== 'object' || result === null) return [];
  return Object.values(result).flatMap((value) => (isRawPixels(value) ? [value.data.buffer as ArrayBuffer] : []));
}

/** The worker thread's entry: runs one kernel; pixel results travel back without a copy. */
export default async function runKernel(task: PixelTask): Promise<unknown> {
  const kernel = KERNELS[task.name] as (payload: unknown) => unknown;
  if (!kernel) throw new Error(`unknown pixel kernel "${task.name}"`);
  const result = await kernel(task.payload);
  const buffers = [...new Set(pixelBuffers(result))];
  if (buffers.length === 0) return result;
  // Piscina unwraps only what move() marks: without it the caller would receive the wrapper, not the pixels.
  const movable = { [Piscina.transferableSymbol]: buffers, [Piscina.valueSymbol]: result };
  return Piscina.move(movable as unknown as Parameters<typeof Piscina.move>[0]);
}
