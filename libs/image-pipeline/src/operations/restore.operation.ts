import type { DecompressStrength } from '../edit-plan';
import { decompressStrengthFor, estimateJpegQuality } from '../kernels/jpeg-quality';
import type { PixelPool } from '../workers/pixel-pool';
import type { StepContext } from './pipeline-step';
import { fromRaw, toRaw, type StageImage } from './stage';

/**
 * The strength `decompress` runs at: as asked, or for `auto` from the quality the JPEG was saved with
 * (read from its quantisation tables); undefined when there is nothing to remove (a clean JPEG, or a
 * format without block artefacts).
 */
export function resolveDecompress(strength: DecompressStrength, bytes: Uint8Array): 'moderate' | 'strong' | undefined {
  if (strength !== 'auto') return strength;
  return decompressStrengthFor(estimateJpegQuality(bytes));
}

/** JPEG deblocking and deringing on a worker thread (kernels/decompress.kernel.ts), on the decoded pixels. */
export async function decompress(
  current: StageImage,
  strength: 'moderate' | 'strong',
  pool: Pick<PixelPool, 'run'>,
): Promise<StageImage> {
  const pixels = await toRaw(current.image);
  return fromRaw(await pool.run('decompress', { image: pixels, strength }));
}

/**
 * `restorations.decompress` (run by libs/editing's registered `restorations` step), at the strength the input's
 * bytes call for: none for a clean JPEG or another format.
 */
export async function decompressAsAsked(
  stage: StageImage,
  asked: DecompressStrength,
  { bytes, pool }: Pick<StepContext, 'bytes' | 'pool'>,
): Promise<StageImage> {
  const strength = resolveDecompress(asked, bytes);
  return strength ? decompress(stage, strength, pool) : stage;
}
