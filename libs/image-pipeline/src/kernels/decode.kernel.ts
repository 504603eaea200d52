import type { RawPixels } from '../workers/raw-pixels';

/** Decodes a BMP file to raw pixels. Placeholder: filled by the decode work. */
export function decodeBmpKernel(payload: { bytes: Uint8Array }): RawPixels {
  throw new Error(`decode-bmp kernel not implemented (${payload.bytes.length})`);
}

/** Decodes the primary image of a HEIC file to raw pixels. Placeholder: filled by the decode work. */
export async function decodeHeicKernel(payload: { bytes: Uint8Array }): Promise<RawPixels> {
  throw new Error(`decode-heic kernel not implemented (${payload.bytes.length})`);
}
