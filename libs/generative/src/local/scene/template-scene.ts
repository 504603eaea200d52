import type { ObjectTone, PortColour } from '@app/image-pipeline';
import type { PromptReading } from '../prompt-vocabulary';
import { applyColourTable, colourTable, fromOklab, toOklab } from './colour-lut';
import type { SceneContext, SceneRenderInput } from './render-scene';
import { applyTint } from './scene-light';

type TemplateBackground = Extract<SceneRenderInput['background'], { kind: 'template' }>;

/**
 * A scene on the client's template, by mode:
 * - `lock`: the template's bytes, darkened (multiplied) only where the shadow has opacity > 0.
 * - `adjust`: the template moved ADJUST_MIX of the way towards the object's mean colour, plus a tone for the
 *   object that moves its mean luminance OBJECT_LIGHT of the way to the template's (and its colour cast and
 *   contrast less), so that object and template look lit alike.
 * - `transform`: the template recoloured in OKLab: its lightness structure kept (only its mean moved part-way),
 *   its chroma replaced by the target colour's (`colour`, else the prompt's first colour) with some of its own
 *   variation left; light words (warm/cool, bright/dark) and the variant's light falloff applied.
 */
const ADJUST_MIX = 0.08;
const OBJECT_LIGHT = 0.3;
const OBJECT_CAST = 0.1;
const TRANSFORM_LIGHTNESS = 0.35;
const TRANSFORM_OWN_CHROMA = 0.3;

export function templateScene(
  context: SceneContext,
  reading: PromptReading,
  background: TemplateBackground,
): { data: Uint8Array; objectTone?: ObjectTone; details: Record<string, string | number> } {
  const { template } = background;
  if (template.length !== context.shadow.length * 3) throw new RangeError('template must be width*height*3 bytes');
  if (background.mode === 'lock') return { data: lockTemplate(template, context.shadow), details: { mode: 'lock' } };
  if (background.mode === 'adjust') return adjustTemplate(context, template);
  return transformTemplate(context, reading, template, background.colour);
}

function lockTemplate(template: Uint8Array, shadow: Float32Array): Uint8Array {
  const data = Uint8Array.from(template);
  for (let i = 0; i < shadow.length; i++) {
    const s = shadow[i];
    if (s === 0) continue;
    for (let c = i * 3; c < i * 3 + 3; c++) data[c] = Math.round(template[c] * (1 - s));
  }
  return data;
}

interface Stats {
  mean: [number, number, number];
  luminance: number;
  /** Standard deviation of the luminance. */
  spread: number;
}

const luma = (r: number, g: number, b: number) => 0.2126 * r + 0.7152 * g + 0.0722 * b;

/** Mean colour, mean and spread of luminance over `pixels` (`stride` bytes each), weighted by `weight(i)`. */
function stats(pixels: Uint8Array, stride: 3 | 4, weight: (i: number) => number): Stats {
  let w = 0;
  let r = 0;
  let g = 0;
  let b = 0;
  let l2 = 0;
  for (let i = 0, p = 0; p < pixels.length; i++, p += stride) {
    const k = weight(i);
    if (k === 0) continue;
    w += k;
    r += pixels[p] * k;
    g += pixels[p + 1] * k;
    b += pixels[p + 2] * k;
    l2 += luma(pixels[p], pixels[p + 1], pixels[p + 2]) ** 2 * k;
  }
  if (w === 0) return { mean: [128, 128, 128], luminance: 128, spread: 1 };
  const mean: [number, number, number] = [r / w, g / w, b / w];
  const luminance = luma(...mean);
  return { mean, luminance, spread: Math.sqrt(Math.max(1, l2 / w - luminance * luminance)) };
}

function adjustTemplate(context: SceneContext, template: Uint8Array) {
  const object = context.input.object;
  const own = stats(template, 3, () => 1);
  const product = stats(object, 4, (i) => object[i * 4 + 3] / 255);
  const shift = [0, 1, 2].map((c) => ADJUST_MIX * (product.mean[c] - own.mean[c]));
  const data = new Uint8Array(template.length);
  const out = new Uint8ClampedArray(data.buffer);
  const { shadow } = context;
  for (let i = 0; i < shadow.length; i++) {
    const keep = 1 - shadow[i];
    for (let c = 0; c < 3; c++) out[i * 3 + c] = (template[i * 3 + c] + shift[c]) * keep;
  }
  // Contrast a quarter of the way in ratio, bounded, around the object's mean.
  const contrast = Math.min(1.1, Math.max(0.9, (own.spread / product.spread) ** 0.25));
  const lightShift = OBJECT_LIGHT * (own.luminance - product.luminance);
  const gain: [number, number, number] = [contrast, contrast, contrast];
  const offset = [0, 1, 2].map((c) => {
    const cast = OBJECT_CAST * (own.mean[c] - own.luminance - (product.mean[c] - product.luminance));
    const target = product.mean[c] + lightShift + cast;
    return round3(target - contrast * product.mean[c]);
  }) as [number, number, number];
  return {
    data,
    objectTone: { gain: gain.map(round3) as [number, number, number], offset },
    details: { mode: 'adjust', objectLight: round3(lightShift) },
  };
}

function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}

function transformTemplate(
  context: SceneContext,
  reading: PromptReading,
  template: Uint8Array,
  colour: PortColour | undefined,
) {
  const { light, input, shadow } = context;
  const { width, height } = input;
  const target = colour ?? reading.colours[0];
  const own = stats(template, 3, (i) => (i % 7 === 0 ? 1 : 0));
  const ownLab = toOklab(...own.mean);
  const goal = target ? toOklab(target.r, target.g, target.b) : undefined;
  const table = colourTable((r, g, b) => {
    const [L, A, B] = toOklab(r, g, b);
    const lab: [number, number, number] = goal
      ? [
          L + TRANSFORM_LIGHTNESS * (goal[0] - ownLab[0]),
          goal[1] + (A - ownLab[1]) * TRANSFORM_OWN_CHROMA,
          goal[2] + (B - ownLab[2]) * TRANSFORM_OWN_CHROMA,
        ]
      : [L, A, B];
    const [R, G, Bl] = fromOklab(lab);
    const rgb = [R * light.exposure, G * light.exposure, Bl * light.exposure];
    applyTint(rgb, light.tint);
    return [rgb[0], rgb[1], rgb[2]];
  });
  const mapped = new Float32Array(template.length);
  applyColourTable(table, template, mapped);
  const data = new Uint8Array(template.length);
  const out = new Uint8ClampedArray(data.buffer);
  const lightX = light.x * width;
  const reach = 1 / ((width * width + height * height) * 0.55);
  const falloff = light.falloff * 0.4;
  for (let y = 0; y < height; y++) {
    const dy = y - height * 0.35;
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const dx = x - lightX;
      const k = (1 - falloff * Math.min(1.6, (dx * dx + dy * dy) * reach)) * (1 - shadow[i]);
      out[i * 3] = mapped[i * 3] * k;
      out[i * 3 + 1] = mapped[i * 3 + 1] * k;
      out[i * 3 + 2] = mapped[i * 3 + 2] * k;
    }
  }
  return { data, details: { mode: 'transform', tint: target ? 'yes' : 'no' } };
}
