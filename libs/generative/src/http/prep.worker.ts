import type { PortPixels } from '@app/image-pipeline';
import { alphaMaskPng, compositeOver, invertMask } from './pixel-ops';
import { encodePng } from './png-encode';

/** One piece of pixel work of the HTTP adapters (pixel-prep.ts). */
export type PrepTask =
  | { kind: 'png'; pixels: PortPixels }
  | { kind: 'composite'; object: PortPixels; base: PortPixels | [number, number, number] }
  | { kind: 'invert'; mask: PortPixels }
  | { kind: 'alpha-png'; image: PortPixels; mask: PortPixels };

/** The worker thread's entry. */
export default function runPrep(task: PrepTask): Uint8Array | PortPixels {
  switch (task.kind) {
    case 'png':
      return encodePng(task.pixels);
    case 'composite':
      return compositeOver(task.object, task.base);
    case 'invert':
      return invertMask(task.mask);
    case 'alpha-png':
      return alphaMaskPng(task.image, task.mask);
  }
}
