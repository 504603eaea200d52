import { backgroundBlurKernel } from './background-blur.kernel';
import { decodeBmpKernel, decodeHeicKernel } from './decode.kernel';
import { decompressKernel } from './decompress.kernel';
import { hdrKernel } from './hdr.kernel';
import { decontaminateKernel, matteKernel } from './matte.kernel';
import { plateBlurKernel } from './plate-blur.kernel';

/**
 * Every JavaScript pixel routine that runs in the worker threads, by name. A kernel is a pure function of
 * its payload (no I/O, no sharp); `PixelPool.run(name, payload)` calls it off the event loop.
 */
export const KERNELS = {
  hdr: hdrKernel,
  decompress: decompressKernel,
  'decode-bmp': decodeBmpKernel,
  'decode-heic': decodeHeicKernel,
  matte: matteKernel,
  decontaminate: decontaminateKernel,
  'background-blur': backgroundBlurKernel,
  'plate-blur': plateBlurKernel,
} as const;

export type Kernels = typeof KERNELS;
export type KernelName = keyof Kernels;
export type KernelPayload<K extends KernelName> = Parameters<Kernels[K]>[0];
export type KernelResult<K extends KernelName> = Awaited<ReturnType<Kernels[K]>>;
