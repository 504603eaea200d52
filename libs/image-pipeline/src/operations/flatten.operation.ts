import type { Rgba } from '../edit-plan';
import type { PipelineStep } from './pipeline-step';
import { ready, type StageImage } from './stage';

/** Transparent pixels become `colour` (alpha blended onto it); an opaque image is left as it is. */
export async function flattenOnto(current: StageImage, colour: Rgba): Promise<StageImage> {
  if (!current.hasAlpha) return current;
  const stage = await ready(current);
  const { r, g, b } = colour;
  return { ...stage, image: stage.image.flatten({ background: { r, g, b } }), hasAlpha: false, fresh: false };
}

/**
 * Transparent pixels onto the background colour, when the output does not keep the alpha channel: first in the
 * padding phase, after the background's own step (libs/editing's registered `background`), before padding.
 */
export const flattenStep: PipelineStep<Rgba> = {
  name: 'flatten',
  phase: 'padding',
  assumes8BitSrgb: true,
  partOf: (plan) => plan.flatten,
  run: (stage, colour) => flattenOnto(stage, colour),
};
