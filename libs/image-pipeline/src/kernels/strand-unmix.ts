import type { RawPixels } from '../workers/raw-pixels';
import type { ColourModel } from './colour-model';
import { backgroundColour, sampleBilinear } from './background-colour';
import { flood8 } from './flood';
import { dilate } from './morphology';

/**
 * How strands the network missed (hair, fur, threads over the backdrop) get their alpha; cutout-refine.ts finds
 * them (near the object, not the backdrop's colour). Each is unmixed on the line from the local backdrop colour
 * (the sure background's mean within `radius` coarse pixels) to a foreground colour, where the two are
 * `contrast` levels apart and the pixel lies within `residual` levels of the line; an alpha below `floor` is
 * dropped (a texture's own variations, not a strand). Measured on the composite set: the base group's SAD
 * 3.37 -> 3.16, the stools' IoU 0.839 -> 0.891, long hair's SAD 33.8 -> 31.5; with `floor` 0 the haze came
 * back on three composites.
 * - `plainTexture`: on a backdrop whose median local contrast (medianTexture, over the whole image's sure
 *   background) is at most this, a plain wall, a gradient, a scene out of focus, strands are followed past the
 *   search's reach along neighbours that unmix as strands too: long hair on flat teal SAD 26.3 -> 20.7. On
 *   busier ones (wood 3-4, brick 6-9, gravel 50, grass 80) the following took the backdrop's own grain for
 *   strands: a bicycle on grass 0.76 -> 0.19, a ring on gravel 0.99 -> 0.66; at 4 a ring on wood grew haze.
 */
export const STRANDS = { radius: 4, floor: 0.2, contrast: 60, residual: 24, plainTexture: 2 } as const;

/**
 * Alpha for the pixels the network called background but whose colour is not the background's, near the object
 * (strands of hair, fur, threads, partly covering the backdrop): each pixel's colour I unmixed on the line from
 * the local background colour B (backgroundColour: the mean of the sure background, less the strands, within a
 * few coarse pixels) to the foreground model's component F that puts I nearest that line:
 * alpha = (I - B).(F - B) / |F - B|^2, kept where I lies within STRANDS.residual levels of the line and F is far
 * enough from B to tell them apart. `where`: the pixels to unmix; `bgSure`: the sure background; `follow`: go on
 * from the strands found along 8-connected pixels that unmix too (see STRANDS.plainTexture). `image`: 3 channels.
 */
export function unmixStrands(
  image: RawPixels,
  alpha: Uint8Array,
  { where, bgSure, follow }: { where: Uint8Array; bgSure: Uint8Array; follow: boolean },
  foreground: ColourModel,
  coarsePixel: number,
): void {
  const { width, height, data } = image;
  // backgroundColour reads alpha 0 as background: the sure background's pixels that are no strand
  const mask = new Uint8Array(width * height);
  const backdrop = new Uint8Array(width * height);
  for (let i = 0; i < mask.length; i++) {
    backdrop[i] = bgSure[i] && !where[i] ? 1 : 0;
    mask[i] = backdrop[i] ? 0 : 255;
  }
  const radius = Math.max(2, Math.round(STRANDS.radius * coarsePixel));
  const grid = backgroundColour(image, mask, radius);
  // only a pixel with backdrop of its own within `radius` is unmixed (not against the wider estimate's colour)
  const beside = dilate(backdrop, width, height, radius);
  const sx = grid.width / width;
  const sy = grid.height / height;
  const { means, components } = foreground;
  const b = [0, 0, 0];
  const d = [0, 0, 0];
  /** The pixel's alpha on its best line from the backdrop to an object colour, or -1 where it is no strand. */
  const unmix = (i: number): number => {
    const x = i % width;
    const y = (i - x) / width;
    sampleBilinear(grid, (x + 0.5) * sx - 0.5, (y + 0.5) * sy - 0.5, b);
    for (let c = 0; c < 3; c++) d[c] = data[i * 3 + c] - b[c];
    let best = Infinity;
    let bestAlpha = 0;
    for (let k = 0; k < components; k++) {
      let dot = 0;
      let length = 0;
      for (let c = 0; c < 3; c++) {
        const f = means[k * 3 + c] - b[c];
        dot += d[c] * f;
        length += f * f;
      }
      if (length < STRANDS.contrast ** 2) continue;
      const a = Math.min(1, Math.max(0, dot / length));
      let residual = 0;
      for (let c = 0; c < 3; c++) residual += (d[c] - a * (means[k * 3 + c] - b[c])) ** 2;
      if (residual < best) {
        best = residual;
        bestAlpha = a;
      }
    }
    return best <= STRANDS.residual ** 2 && bestAlpha >= STRANDS.floor ? bestAlpha : -1;
  };
  const stack = new Int32Array(width * height);
  const seen = new Uint8Array(width * height);
  let top = 0;
  for (let i = 0; i < where.length; i++) {
    if (!where[i] || alpha[i] === 255 || !beside[i]) continue;
    seen[i] = 1;
    const a = unmix(i);
    if (a < 0) continue;
    alpha[i] = Math.max(alpha[i], Math.round(255 * a));
    stack[top++] = i;
  }
  if (!follow) return;
  // strands run on past the search's reach: followed along neighbours that unmix as strands too
  flood8(stack, top, width, height, (next) => {
    if (seen[next] || where[next] || alpha[next] !== 0 || !beside[next]) return false;
    seen[next] = 1;
    const a = unmix(next);
    if (a < 0) return false;
    alpha[next] = Math.round(255 * a);
    return true;
  });
}
