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
  return {
    [Piscina.transferableSymbol]: [buffer],
    [Piscina.valueSymbol]: result,
  };
}
