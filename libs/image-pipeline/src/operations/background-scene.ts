import sharp from 'sharp';
import { Segmenter, type RawImage } from '../ports/segmenter.port';

/**
 * Synthetic scenes for the background steps' specs: textured discs (the objects) on a textured, coloured
 * background, with their exact alpha, composited as a camera would see them (I = a F + (1 - a) B).
 */
export interface Disc {
  cx: number;
  cy: number;
  r: number;
}

export const OBJECT_COLOUR = [225, 140, 40];
export const BACKGROUND_COLOUR = [30, 170, 70];

export interface Scene {
  width: number;
  height: number;
  discs: Disc[];
  /** The true alpha, 0..1 per pixel (anti-aliased coverage). */
  alpha: Float32Array;
  /** The composite, 3-channel PNG bytes. */
  png: Buffer;
  /** Its pixels. */
  rgb: Uint8Array;
}

/** Coverage 0..1 of the pixel (x, y) by the discs, the edge anti-aliased over one pixel. */
function coverage(discs: Disc[], x: number, y: number): number {
  let best = 0;
  for (const { cx, cy, r } of discs) {
    const d = Math.hypot(x + 0.5 - cx, y + 0.5 - cy);
    best = Math.max(best, Math.min(1, Math.max(0, r - d + 0.5)));
  }
  return best;
}

export async function discScene(width: number, height: number, discs: Disc[]): Promise<Scene> {
  const alpha = new Float32Array(width * height);
  const rgb = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const a = coverage(discs, x, y);
      alpha[i] = a;
      // the object's texture: fine stripes; the background's: a checker of 8 px, both of moderate contrast
      const stripe = (x + y) % 6 < 3 ? 1.1 : 0.9;
      const check = ((x >> 3) + (y >> 3)) % 2 === 0 ? 1.15 : 0.85;
      for (let c = 0; c < 3; c++) {
        const f = Math.min(255, OBJECT_COLOUR[c] * stripe);
        const b = Math.min(255, BACKGROUND_COLOUR[c] * check);
        rgb[i * 3 + c] = Math.round(a * f + (1 - a) * b);
      }
    }
  }
  const png = await sharp(rgb, { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
  return { width, height, discs, alpha, png, rgb };
}

/**
 * A stand-in for the model, allowed here because these are unit specs of the refinement, not of segmentation:
 * it answers the scene's TRUE mask at its input size, softened the way a model's 320 px output is (a 5 x 5 box
 * blur), so that what the specs measure is what the refinement recovers at full size.
 */
export class SceneSegmenter extends Segmenter {
  readonly inputSize = { width: 320, height: 320 };
  calls = 0;

  constructor(private readonly scene: Pick<Scene, 'width' | 'height' | 'discs'>) {
    super();
  }

  async mask(rgb: RawImage): Promise<RawImage> {
    this.calls++;
    const { width, height } = this.inputSize;
    const sx = this.scene.width / width;
    const sy = this.scene.height / height;
    const sharpMask = new Float32Array(width * height);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const inside = this.scene.discs.some(
          ({ cx, cy, r }) => Math.hypot((x + 0.5) * sx - cx, (y + 0.5) * sy - cy) <= r,
        );
        sharpMask[y * width + x] = inside ? 255 : 0;
      }
    }
    const data = new Uint8Array(width * height);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        let sum = 0;
        let count = 0;
        for (let dy = -2; dy <= 2; dy++) {
          for (let dx = -2; dx <= 2; dx++) {
            const nx = x + dx;
            const ny = y + dy;
            if (nx < 0 || ny < 0 || nx >= width || ny >= height) continue;
            sum += sharpMask[ny * width + nx];
            count++;
          }
        }
        data[y * width + x] = Math.round(sum / count);
      }
    }
    expectSize(rgb, width, height);
    return { data, width, height, channels: 1 };
  }
}

function expectSize(rgb: RawImage, width: number, height: number): void {
  if (rgb.width !== width || rgb.height !== height || rgb.channels !== 3) {
    throw new Error(`the segmenter was given ${rgb.width}x${rgb.height}x${rgb.channels}, not ${width}x${height}x3`);
  }
}
