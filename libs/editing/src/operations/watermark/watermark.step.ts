import sharp from 'sharp';
import { ServiceException } from '@app/common';
import { probeImage, ready, type ImageProbe, type StageImage, type StepContext } from '@app/image-pipeline';
import type { WatermarkPosition } from './watermark.dto';

/** The watermark's part of the plan (watermark.operation.ts): sizes in pixels of the output. */
export interface WatermarkPart {
  mark:
    { kind: 'image' } | { kind: 'text'; text: string; color: { r: number; g: number; b: number }; fontSize?: number };
  /** The mark's width (`scale` of the output's width); a text with `fontSize` keeps its own. */
  width: number;
  position: WatermarkPosition;
  offset: { x: number; y: number };
  opacity: number;
  tile: boolean;
}

/** A mark ready to composite: RGBA pixels. */
interface Mark {
  data: Buffer;
  width: number;
  height: number;
}

/** The space between tiles, as a share of the mark's size: tiles that touch read as a pattern, not a mark. */
const TILE_GAP = 0.5;
/** A text without a size is drawn at this size, then scaled to its width. */
const TEXT_DRAW_PX = 200;
/**
 * Most pixels of a watermark's image (4096 x 4096): its decoded RGBA is what the admission counts for it
 * (watermark.operation.ts, `memory`), so a larger one is refused before its pixels are decoded.
 */
export const MARK_MAX_PIXELS = 4096 * 4096;
/** A glyph is about this share of the font size wide: the estimate that keeps a drawn text within its budget. */
const GLYPH_WIDTH = 0.6;

/** The step: the mark made (watermark's image or text), then composited over the stage. */
export async function drawWatermark(stage: StageImage, part: WatermarkPart, context: StepContext): Promise<StageImage> {
  const base = await ready(stage);
  let mark = await makeMark(part, base, context);
  if (mark.width === 0 || mark.height === 0) return base;
  if (part.tile) {
    mark = await spaced(mark);
    const image = base.image.composite([{ input: mark.data, raw: raw(mark), tile: true, blend: 'over' }]);
    return { ...base, image, fresh: false };
  }
  const { left, top } = placeOf(part.position, part.offset, mark, base);
  const image = base.image.composite([{ input: mark.data, raw: raw(mark), left, top, blend: 'over' }]);
  return { ...base, image, fresh: false };
}

function raw(mark: Mark) {
  return { width: mark.width, height: mark.height, channels: 4 as const };
}

/**
 * The mark's top-left corner: against the edges `position` names, `offset` pixels in (x from the left or right
 * edge, y from the top or bottom; centred on an axis the position does not name), kept on the image.
 */
export function placeOf(
  position: WatermarkPosition,
  offset: { x: number; y: number },
  mark: { width: number; height: number },
  image: { width: number; height: number },
): { left: number; top: number } {
  const freeX = image.width - mark.width;
  const freeY = image.height - mark.height;
  const x = position.includes('west') ? offset.x : position.includes('east') ? freeX - offset.x : freeX / 2;
  const y = position.startsWith('north') ? offset.y : position.startsWith('south') ? freeY - offset.y : freeY / 2;
  const clamp = (value: number, free: number) => Math.max(0, Math.min(free, Math.round(value)));
  return { left: clamp(x, freeX), top: clamp(y, freeY) };
}

/**
 * The mark's RGBA pixels at its size, never past the image, with the opacity multiplied into its alpha: two
 * pipelines on libvips' threads (sharp resizes once per pipeline), raw pixels between them.
 */
async function makeMark(part: WatermarkPart, image: StageImage, context: StepContext): Promise<Mark> {
  const drawn = part.mark.kind === 'image' ? await imageMark(context) : textMark(part.mark, image);
  const keepsSize = part.mark.kind === 'text' && part.mark.fontSize !== undefined;
  const sized = await (keepsSize ? drawn : drawn.resize({ width: part.width }))
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  let fitted = sharp(sized.data, { raw: { width: sized.info.width, height: sized.info.height, channels: 4 } }).resize({
    width: image.width,
    height: image.height,
    fit: 'inside',
    withoutEnlargement: true,
  });
  if (part.opacity < 1) fitted = fitted.linear([1, 1, 1, part.opacity], [0, 0, 0, 0]);
  const { data, info } = await fitted.raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/** The formats probeImage knows that sharp decodes itself (BMP and HEIC go through the pipeline's own kernels). */
const MARK_FORMATS: ReadonlySet<ImageProbe['format']> = new Set(['jpeg', 'png', 'webp', 'gif', 'tiff', 'avif']);

/**
 * The watermark's image, read by the executor (EditAssets): its type read from its bytes and its size checked
 * (probeImage, as for an input) before its pixels are decoded.
 */
async function imageMark(context: StepContext): Promise<sharp.Sharp> {
  const bytes = context.assets?.operations?.watermark;
  const field = 'operations.watermark.image';
  if (!bytes) throw new Error('watermark: the image was not read before the pixel work');
  let probe: ImageProbe;
  try {
    probe = await probeImage(bytes);
  } catch {
    throw ServiceException.validation({ [field]: ['is not an image this service can read'] });
  }
  if (!MARK_FORMATS.has(probe.format)) {
    throw ServiceException.validation({ [field]: ['must be a PNG, JPEG, WebP, GIF, TIFF or AVIF image'] });
  }
  const limit = Math.min(MARK_MAX_PIXELS, context.maxPixels);
  if (probe.width * probe.height > limit) {
    throw ServiceException.validation({
      [field]: [`must be an image of at most ${limit} pixels (it is ${probe.width}x${probe.height})`],
    });
  }
  return sharp(bytes, { limitInputPixels: limit }).rotate().ensureAlpha();
}

/**
 * The text in the service's sans-serif font (Pango), in its colour, on transparency. Drawn at most at the size whose
 * line (about GLYPH_WIDTH of the size per character) covers twice the image's area, so that 200 characters at
 * 1000 px do not make a picture of 120,000 px: a text larger than the image ends up fitted to it anyway.
 */
function textMark(
  mark: Extract<WatermarkPart['mark'], { kind: 'text' }>,
  image: { width: number; height: number },
): sharp.Sharp {
  const { r, g, b } = mark.color;
  const hex = `#${[r, g, b].map((channel) => channel.toString(16).padStart(2, '0')).join('')}`;
  const escaped = mark.text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const budget = Math.floor(Math.sqrt((2 * image.width * image.height) / (GLYPH_WIDTH * mark.text.length)));
  const size = Math.max(1, Math.min(mark.fontSize ?? TEXT_DRAW_PX, budget));
  // at 72 dpi a point is a pixel
  return sharp({
    text: { text: `<span foreground="${hex}">${escaped}</span>`, font: `sans ${size}`, dpi: 72, rgba: true },
  });
}

/**
 * The mark with transparent space around it, so that tiles stand apart: TILE_GAP of its longer side on both axes
 * (a line of text is wide and low; a gap of half its height packed the rows into stripes).
 */
async function spaced(mark: Mark): Promise<Mark> {
  const x = Math.round((Math.max(mark.width, mark.height) * TILE_GAP) / 2);
  const y = x;
  const { data, info } = await sharp(mark.data, { raw: raw(mark) })
    .extend({ left: x, right: x, top: y, bottom: y, background: { r: 0, g: 0, b: 0, alpha: 0 } })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}
