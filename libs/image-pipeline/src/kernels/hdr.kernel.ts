import type { RawPixels } from '../workers/raw-pixels';

export interface HdrKernelPayload {
  image: RawPixels;
  intensity: number;
  stitching: boolean;
}

/** Local tone mapping (shadows lifted, highlights kept). Placeholder: filled by the HDR work. */
export function hdrKernel(payload: HdrKernelPayload): RawPixels {
  throw new Error(`hdr kernel not implemented (${payload.intensity})`);
}
