import { parseColour } from '../../dto/edit-values';
import type { Issues } from '../../dto/dto-validation';
import type { EditOperation } from '../edit-operation';
import { WatermarkDto, type WatermarkPosition } from './watermark.dto';
import { drawWatermark, MARK_MAX_PIXELS, type WatermarkPart } from './watermark.step';

/** `operations.watermark` as the request resolves it: the mark, where it goes, how large and how opaque. */
export interface Watermark {
  mark: { kind: 'image'; location: string } | { kind: 'text'; text: string; color: Rgb; fontSize?: number };
  position: WatermarkPosition;
  offset: { x: number; y: number };
  scale: number;
  opacity: number;
  tile: boolean;
}

export interface Rgb {
  r: number;
  g: number;
  b: number;
}

const DEFAULTS = { position: 'south_east', scale: 0.2, opacity: 1, color: { r: 255, g: 255, b: 255 } } as const;
const FIELD = 'operations.watermark';

function read(dto: object, path: string, issues: Issues): Watermark | undefined {
  const value = dto as WatermarkDto;
  const image = value.image ?? undefined;
  const text = value.text ?? undefined;
  if ((image === undefined) === (text === undefined)) {
    issues.add(path, 'watermark needs exactly one of image and text');
    return undefined;
  }
  for (const member of ['color', 'font_size'] as const) {
    if (image !== undefined && value[member] !== undefined && value[member] !== null) {
      issues.add(`${path}.${member}`, `${member} applies to a text mark only`);
    }
  }
  const colour = value.color ? parseColour(value.color) : undefined;
  if (colour && 'value' in colour && colour.value.kind === 'transparent') {
    issues.add(`${path}.color`, 'color must be a hexadecimal colour "#rgb" or "#rrggbb"');
  }
  if (issues.has(path)) return undefined;
  const color = colour && 'value' in colour && colour.value.kind === 'rgb' ? colour.value : DEFAULTS.color;
  return {
    mark:
      image !== undefined
        ? { kind: 'image', location: image }
        : {
            kind: 'text',
            text: text!,
            color: { r: color.r, g: color.g, b: color.b },
            ...(value.font_size != null && { fontSize: value.font_size }),
          },
    position: value.position ?? DEFAULTS.position,
    offset: { x: value.offset?.x ?? 0, y: value.offset?.y ?? 0 },
    scale: value.scale ?? DEFAULTS.scale,
    opacity: value.opacity ?? DEFAULTS.opacity,
    tile: value.tile ?? false,
  };
}

/**
 * A watermark over the final pixels: after resizing, padding, adjustments and style transfer, before encoding
 * (the `overlay` phase), in synchronous, asynchronous and batch edits alike. The mark is scaled to `scale` of the
 * output's width (a text with `font_size` keeps that size), never past the image, made `opacity` times as opaque,
 * and placed against the edges `position` names, `offset` pixels in; `tile` repeats it over the whole image.
 */
export const watermarkOperation: EditOperation<Watermark, WatermarkPart> = {
  name: 'watermark',
  dto: WatermarkDto,
  description:
    'A watermark over the final image (after resizing and padding, before encoding): `{"image": URL or storage reference}` or `{"text", "color"?, "font_size"?}`, with `position`, `offset`, `scale`, `opacity` and `tile`.',
  read,
  asset: (value) =>
    value.mark.kind === 'image' ? { field: `${FIELD}.image`, location: value.mark.location } : undefined,
  plan: (value, { size }) => ({
    mark:
      value.mark.kind === 'image'
        ? { kind: 'image' }
        : { kind: 'text', text: value.mark.text, color: value.mark.color, fontSize: value.mark.fontSize },
    width: Math.max(1, Math.round(value.scale * size.width)),
    position: value.position,
    offset: value.offset,
    opacity: value.opacity,
    tile: value.tile,
  }),
  step: {
    phase: 'overlay',
    assumes8BitSrgb: true,
    materialises: true,
    // the mark at the output's size at most and the composite's result; an image mark decoded whole first
    memory: (part, { output }) => 2 * output * 4 + (part.mark.kind === 'image' ? MARK_MAX_PIXELS * 4 : 0),
    run: drawWatermark,
  },
};
