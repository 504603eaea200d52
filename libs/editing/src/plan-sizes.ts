import { ServiceException } from '@app/common';
import type { Sides } from '@app/image-pipeline';
import type { SideLengths } from './edit-request.model';
import type { Dimensions } from './resize-geometry';

/** Side lengths in pixels of an image of `width` x `height`; each at most half of its side, else 422. */
export function resolveSides(lengths: SideLengths, width: number, height: number, field: string): Sides {
  const px = (value: number, side: number) => (lengths.unit === 'percent' ? Math.round((value * side) / 100) : value);
  const sides = {
    top: px(lengths.top, height),
    right: px(lengths.right, width),
    bottom: px(lengths.bottom, height),
    left: px(lengths.left, width),
  };
  const tooWide = Math.max(sides.left, sides.right) > width / 2;
  const tooHigh = Math.max(sides.top, sides.bottom) > height / 2;
  if (tooWide || tooHigh) {
    throw ServiceException.validation({
      [field]: [
        `each value must be at most 50% of the image side (the image is ${width}x${height}; at most ${Math.floor(width / 2)}px horizontally and ${Math.floor(height / 2)}px vertically)`,
      ],
    });
  }
  return sides;
}

/** 422 at `field` when `what` (an image of `size`) would have more than `limit` pixels. */
export function checkSize(field: string, size: Dimensions, limit: number, what: string): void {
  if (size.width * size.height > limit) throw tooManyPixels(field, size, limit, what);
}

export function tooManyPixels(field: string, size: Dimensions, limit: number, what: string): ServiceException {
  const mp = (pixels: number) => `${(pixels / 1e6).toFixed(2)} MP`;
  return ServiceException.validation({
    [field]: [
      `${what} would be ${size.width}x${size.height} (${mp(size.width * size.height)}), more than ${mp(limit)}`,
    ],
  });
}
