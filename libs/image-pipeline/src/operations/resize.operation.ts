import sharp from 'sharp';
import type { ResizePlan } from '../edit-plan';
import type { PipelineStep } from './pipeline-step';
import { ready, withAlpha, type StageImage } from './stage';

/**
 * Resizes as the plan says; the result is exactly `plan.width` x `plan.height`. A fresh pipeline is used as
 * it is, so that JPEG and WebP inputs are shrunk while they are decoded (the fast path of a plain resize). Where
 * the plan upscales, the upscale step (upscale.operation.ts) has already enlarged the image by the model's scale:
 * this makes the exact size from it.
 */
export async function resize(current: StageImage, plan: ResizePlan): Promise<StageImage> {
  const stage = await ready(current);
  const { width, height } = plan;
  if (plan.mode === 'canvas') return canvas(stage, plan);
  if (plan.mode === 'scale' && width === stage.width && height === stage.height) return stage;
  const image =
    plan.mode === 'scale'
      ? stage.image.resize({ width, height, fit: 'fill', kernel: 'lanczos3' })
      : stage.image.resize({
          width,
          height,
          fit: 'cover',
          kernel: 'lanczos3',
          position: plan.position === 'smart' ? sharp.strategy.attention : 'centre',
        });
  return { ...stage, image, width, height, fresh: false };
}

/** The image, scaled to `inner`, centred on the canvas; the rest is `fill`. */
async function canvas(current: StageImage, plan: Extract<ResizePlan, { mode: 'canvas' }>): Promise<StageImage> {
  const { inner, fill } = plan;
  let stage = current;
  if (inner.width !== stage.width || inner.height !== stage.height) {
    const image = stage.image.resize({ width: inner.width, height: inner.height, fit: 'fill', kernel: 'lanczos3' });
    stage = { ...stage, image, ...inner, fresh: false };
  }
  const keepsAlpha = stage.hasAlpha || fill.alpha < 1;
  if (keepsAlpha) stage = await withAlpha(stage);
  let image = stage.image;
  const left = Math.floor((plan.width - inner.width) / 2);
  const top = Math.floor((plan.height - inner.height) / 2);
  image = image.extend({
    top,
    left,
    bottom: plan.height - inner.height - top,
    right: plan.width - inner.width - left,
    background: fill,
  });
  return { image, width: plan.width, height: plan.height, hasAlpha: keepsAlpha, fresh: false };
}

/** Resizing: the fit, after the upscale model where the size grows. Works at any bit depth (a plain resize stays 16-bit). */
export const resizeStep: PipelineStep<ResizePlan> = {
  name: 'resize',
  phase: 'resizing',
  assumes8BitSrgb: false,
  partOf: (plan) => plan.resize,
  run: (stage, plan) => resize(stage, plan),
};
