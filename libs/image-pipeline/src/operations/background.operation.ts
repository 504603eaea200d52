import type { Rgba } from '../edit-plan';
import { ready, type StageImage } from './stage';

/** sharp's colour object from a plan colour (channels 0..255, alpha 0..1). */
export function sharpColour(colour: Rgba): { r: number; g: number; b: number; alpha: number } {
  return { r: colour.r, g: colour.g, b: colour.b, alpha: colour.alpha };
}

/** Transparent pixels become `colour` (alpha blended onto it); an opaque image is left as it is. */
export async function flattenOnto(current: StageImage, colour: Rgba): Promise<StageImage> {
  if (!current.hasAlpha) return current;
  const stage = await ready(current);
  const { r, g, b } = colour;
  return { ...stage, image: stage.image.flatten({ background: { r, g, b } }), hasAlpha: false, fresh: false };
}
