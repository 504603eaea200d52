import sharp from 'sharp';
import type { StageImage } from './stage';

/**
 * Small images made by code for the operation specs: four quadrants (top-left red, top-right green,
 * bottom-left blue, bottom-right white) of `width` x `height`, optionally with alpha.
 */
export async function quadrants(width: number, height: number, alpha = 1): Promise<StageImage> {
  const channels = 4;
  const data = Buffer.alloc(width * height * channels);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const right = x >= width / 2;
      const bottom = y >= height / 2;
      const colour = !bottom ? (right ? [0, 255, 0] : [255, 0, 0]) : right ? [255, 255, 255] : [0, 0, 255];
      data.set([...colour, Math.round(alpha * 255)], (y * width + x) * channels);
    }
  }
  const image = sharp(data, { raw: { width, height, channels } });
  return { image: alpha < 1 ? image : image.removeAlpha(), width, height, hasAlpha: alpha < 1, fresh: true };
}

/** A grey ramp from black (left) to white (right), with a dark band in the lower half. */
export function ramp(width: number, height: number): StageImage {
  const data = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const value = Math.round((255 * x) / (width - 1)) >> (y >= height / 2 ? 1 : 0);
      data.fill(value, (y * width + x) * 3, (y * width + x) * 3 + 3);
    }
  }
  return { image: sharp(data, { raw: { width, height, channels: 3 } }), width, height, hasAlpha: false, fresh: true };
}

export async function pixels(
  stage: StageImage,
): Promise<{ data: Buffer; width: number; height: number; channels: number }> {
  const { data, info } = await stage.image.raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: info.channels };
}

export function at(image: { data: Buffer; width: number; channels: number }, x: number, y: number): number[] {
  const offset = (y * image.width + x) * image.channels;
  return [...image.data.subarray(offset, offset + image.channels)];
}

export function mean(image: { data: Buffer; channels: number }): number {
  let sum = 0;
  let count = 0;
  for (let i = 0; i < image.data.length; i += image.channels) {
    sum += (image.data[i] + image.data[i + 1] + image.data[i + 2]) / 3;
    count++;
  }
  return sum / count;
}
