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

/** The worker thread's entry: runs one kernel; a pixel result travels back without a copy. */
export default async function runKernel(task: PixelTask): Promise<unknown> {
  const kernel = KERNELS[task.name] as (payload: unknown) => unknown;
  if (!kernel) throw new Error(`unknown pixel kernel "${task.name}"`);
  const result = await kernel(task.payload);
  if (!isRawPixels(result)) return result;
  const buffer = result.data.buffer as ArrayBuffer;
  // Piscina unwraps only what move() marks: without it the caller would receive the wrapper, not the pixels.
  const movable = { [Piscina.transferableSymbol]: [buffer], [Piscina.valueSymbol]: result };
  return Piscina.move(movable as unknown as Parameters<typeof Piscina.move>[0]);
}
