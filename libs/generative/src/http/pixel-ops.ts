import type { PortPixels } from '@app/image-pipeline';
import { encodePng } from './png-encode';

/*
 * The pixel loops of the HTTP adapters: an object composited on what it stands on, masks turned round, PNGs
 * encoded. Pure functions of plain pixels, run on a worker thread (pixel-prep.ts), never on the event loop.
 */

/** The object (4 channels) over `base`: a 3-channel image of its size, or a colour. 3 channels. */
export function compositeOver(object: PortPixels, base: PortPixels | [number, number, number]): PortPixels {
  const { data, width, height } = object;
  const out = new Uint8Array(width * height * 3);
  if (Array.isArray(base)) {
    for (let index = 0; index < out.length; index += 3) out.set(base, index);
  } else {
    out.set(base.data.subarray(0, out.length));
  }
  for (let pixel = 0, index = 0; index < out.length; pixel += 4, index += 3) {
    const alpha = data[pixel + 3];
    if (alpha === 0) continue;
    for (let channel = 0; channel < 3; channel += 1) {
      const below = out[index + channel];
      out[index + channel] = below + Math.round(((data[pixel + channel] - below) * alpha) / 255);
    }
  }
  return { data: out, width, height, channels: 3 };
}

/** The mask the other way round: 255 where the generator paints (outside the object), 0 on the object. */
export function invertMask(mask: PortPixels): PortPixels {
  const out = new Uint8Array(mask.data.length);
  for (let index = 0; index < out.length; index += 1) out[index] = 255 - mask.data[index];
  return { data: out, width: mask.width, height: mask.height, channels: 1 };
}

/** The mask OpenAI reads, as PNG: the image itself, its alpha 0 where to paint (`mask` 255) and 255 where to keep. */
export function alphaMaskPng(image: PortPixels, mask: PortPixels): Uint8Array {
  const { data, width, height, channels } = image;
  const out = new Uint8Array(width * height * 4);
  for (let pixel = 0; pixel < width * height; pixel += 1) {
    for (let channel = 0; channel < 3; channel += 1) out[pixel * 4 + channel] = data[pixel * channels + channel];
    out[pixel * 4 + 3] = 255 - mask.data[pixel];
  }
  return encodePng({ data: out, width, height, channels: 4 });
}
