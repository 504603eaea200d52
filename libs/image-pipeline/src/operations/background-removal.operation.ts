import type { RemoveBackgroundPlan } from '../edit-plan';
import type { PixelBox } from '../kernels/matte.kernel';
import type { StepContext } from './pipeline-step';
import { fromRaw, ready, toRaw, type StageImage } from './stage';
import { rawImage, resizedRaw, subjectMatte } from './subject-matte';

/**
 * The object cut out with an alpha channel: the Segmenter's mask refined at the working size, upsampled to full
 * size, and the edge band's colours freed of the old background (kernels/matte.kernel.ts). What the transparent
 * pixels become (a colour, or kept transparent) is the flatten step's, after this one.
 */
export async function removeBackground(
  current: StageImage,
  plan: RemoveBackgroundPlan,
  context: StepContext,
): Promise<StageImage> {
  const stage = await ready(current);
  const pixels = await toRaw(stage.image);
  const { width, height } = pixels;
  const matte = await subjectMatte(pixels, plan.subject, context);
  const alpha = await resizedRaw(rawImage(matte.alpha), width, height, 1);
  // a matte made below full size is refined again at full size, over about one working pixel
  const scale = Math.max(width / matte.alpha.width, height / matte.alpha.height);
  const refineRadius = scale > 1.01 ? Math.ceil(scale) + 1 : undefined;
  const cutOut = await context.pool.run('decontaminate', {
    image: pixels,
    alpha,
    background: matte.background,
    refineRadius,
  });
  const result = fromRaw(cutOut);
  if (!plan.clipping) return result;
  const box = matte.box && fullSizeBox(matte.box, matte.alpha, { width, height });
  // nothing kept: a clipped result of nothing would be an empty image; the transparent whole is returned
  if (!box) return result;
  return { ...result, image: result.image.extract(box), width: box.width, height: box.height, fresh: false };
}

/** A box found at the working size, at full size: rounded outwards. */
export function fullSizeBox(
  box: PixelBox,
  working: { width: number; height: number },
  full: { width: number; height: number },
): PixelBox {
  const sx = full.width / working.width;
  const sy = full.height / working.height;
  const left = Math.max(0, Math.floor(box.left * sx));
  const top = Math.max(0, Math.floor(box.top * sy));
  const right = Math.min(full.width, Math.ceil((box.left + box.width) * sx));
  const bottom = Math.min(full.height, Math.ceil((box.top + box.height) * sy));
  return { left, top, width: right - left, height: bottom - top };
}
