import type { ResizePlan, Rgba, UpscalePlan } from '@app/image-pipeline';
import type { Size as SizeSpec } from './dto/edit-values';

export interface ResizeRequest {
  width?: SizeSpec;
  height?: SizeSpec;
  fit: 'crop' | 'bounds' | 'cover' | 'canvas' | 'outpaint';
  crop: 'center' | 'smart';
}

export interface Dimensions {
  width: number;
  height: number;
}

/** Rounds a scaled side, never below one pixel. */
function side(value: number): number {
  return Math.max(1, Math.round(value));
}

/** The other side of `size` scaled so that one side becomes `value` (aspect ratio kept). */
function keepAspect(size: Dimensions, given: 'width' | 'height', value: number): Dimensions {
  return given === 'width'
    ? { width: value, height: side((value * size.height) / size.width) }
    : { width: side((value * size.width) / size.height), height: value };
}

/**
 * The target size of the contract's six resizing rules for an image of `size`:
 * 1. no side given: unchanged;
 * 2. crop with one side given (the other absent): the other side is the image's, the rest cropped;
 * 3. any other fit with one side (or the other `auto`): the other side follows the aspect ratio;
 * 4-5. both sides: crop covers and crops; bounds fits inside; cover covers; canvas is the box itself;
 * a percentage scales both sides (the other side is the same percentage or `auto`).
 * Returns undefined for rule 1.
 */
export function targetSize(
  request: ResizeRequest,
  size: Dimensions,
): { box: Dimensions; mode: 'exact' | 'crop' | 'canvas' } | undefined {
  const { width, height, fit } = request;
  const givenW = width && width.kind !== 'auto' ? width : undefined;
  const givenH = height && height.kind !== 'auto' ? height : undefined;
  if (!givenW && !givenH) return undefined;
  const percent = givenW?.kind === 'percent' ? givenW : givenH?.kind === 'percent' ? givenH : undefined;
  if (percent) {
    const factor = percent.value / 100;
    return { box: { width: side(size.width * factor), height: side(size.height * factor) }, mode: 'exact' };
  }
  const w = givenW?.value;
  const h = givenH?.value;
  const canvas = fit === 'canvas' ? 'canvas' : 'exact';
  if (w !== undefined && h !== undefined) {
    if (fit === 'crop') return { box: { width: w, height: h }, mode: 'crop' };
    if (fit === 'canvas') return { box: { width: w, height: h }, mode: 'canvas' };
    const scale =
      fit === 'bounds' ? Math.min(w / size.width, h / size.height) : Math.max(w / size.width, h / size.height);
    return { box: { width: side(size.width * scale), height: side(size.height * scale) }, mode: 'exact' };
  }
  const given = w !== undefined ? 'width' : 'height';
  const value = (w ?? h) as number;
  const otherAbsent = given === 'width' ? height === undefined : width === undefined;
  if (fit === 'crop' && otherAbsent) {
    const box = given === 'width' ? { width: value, height: size.height } : { width: size.width, height: value };
    return { box, mode: 'crop' };
  }
  return { box: keepAspect(size, given, value), mode: canvas };
}

/** The size a crop scales the image to before it cuts the box out (covering it, aspect ratio kept). */
export function coverSize(size: Dimensions, box: Dimensions): Dimensions {
  const scale = Math.max(box.width / size.width, box.height / size.height);
  return {
    width: Math.max(box.width, side(size.width * scale)),
    height: Math.max(box.height, side(size.height * scale)),
  };
}

/** The image's size inside a canvas: unchanged when it fits, else scaled down to fit (never enlarged). */
export function canvasInner(size: Dimensions, box: Dimensions): Dimensions {
  const scale = Math.min(1, box.width / size.width, box.height / size.height);
  return scale === 1 ? { ...size } : { width: side(size.width * scale), height: side(size.height * scale) };
}

/**
 * The pipeline's resize plan. `upscale` (the super-resolution model) applies when the size grows; asked for
 * without a size, it enlarges 2x (docs/api-contract.md, "Image edit").
 */
export function planResize(
  request: ResizeRequest,
  size: Dimensions,
  options: { upscale?: UpscalePlan; fill: Rgba },
): ResizePlan | undefined {
  const target =
    targetSize(request, size) ??
    (options.upscale ? { box: { width: size.width * 2, height: size.height * 2 }, mode: 'exact' as const } : undefined);
  if (!target) return undefined;
  const { box, mode } = target;
  const upscale =
    options.upscale && Math.max(box.width / size.width, box.height / size.height) > 1 ? options.upscale : undefined;
  if (mode === 'canvas') return { mode: 'canvas', ...box, inner: canvasInner(size, box), fill: options.fill };
  if (mode === 'crop') return { mode: 'crop', ...box, position: request.crop, upscale };
  return { mode: 'scale', ...box, upscale };
}
