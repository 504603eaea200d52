import type { Rgba } from '../edit-plan';
import { ready, type StageImage } from './stage';

/** Transparent pixels become `colour` (alpha blended onto it); an opaque image is left as it is. */
export async function flattenOnto(current: StageImage, colour: Rgba): Promise<StageImage> {
  if (!current.hasAlpha) return current;
  const stage = await ready(current);
  const { r, g, b } = colour;
  return { ...stage, image: stage.image.flatten({ background: { r, g, b } }), hasAlpha: false, fresh: false };
}
