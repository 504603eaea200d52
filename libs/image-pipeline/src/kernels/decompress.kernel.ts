import type { RawPixels } from '../workers/raw-pixels';

export interface DecompressKernelPayload {
  image: RawPixels;
  strength: 'moderate' | 'strong';
}

/** JPEG deblocking and deringing. Placeholder: filled by the decompress work. */
export function decompressKernel(payload: DecompressKernelPayload): RawPixels {
  throw new Error(`decompress kernel not implemented (${payload.strength})`);
}
