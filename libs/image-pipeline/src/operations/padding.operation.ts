import type { Rgba, Sides } from '../edit-plan';
import { ready, withAlpha, type StageImage } from './stage';

/** Adds `sides` pixels around the image, filled with `fill` (transparent only when the image keeps alpha). */
export async function pad(current: StageImage, sides: Sides, fill: Rgba): Promise<StageImage> {
  if (sides.top + sides.right + sides.bottom + sides.left === 0) return current;
  const keepsAlpha = current.hasAlpha || fill.alpha < 1;
  const stage = keepsAlpha ? await withAlpha(current) : await ready(current);
  const image = stage.image.extend({ ...sides, background: fill });
  return {
    image,
    width: stage.width + sides.left + sides.right,
    height: stage.height + sides.top + sides.bottom,
    hasAlpha: keepsAlpha,
    fresh: false,
  };
}
