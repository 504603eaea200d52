import type { Rgba } from '@app/image-pipeline';
import { describe, expect, it } from 'vitest';
import type { Size } from './dto/edit-values';
import { canvasInner, coverSize, planResize, targetSize, type ResizeRequest } from './resize-geometry';

/*
 * The contract's resizing rules (docs/api-contract.md, "Image edit", rules 1-6) as tables: an image's size and a
 * resolved request in, the plan's size and mode out. Where the pixels go (crop position, canvas placement, fill)
 * is checked over HTTP, on pixels, by test/image-resize.e2e-spec.ts.
 */

const px = (value: number): Size => ({ kind: 'px', value });
const percent = (value: number): Size => ({ kind: 'percent', value });
const AUTO: Size = { kind: 'auto' };
const WHITE: Rgba = { r: 255, g: 255, b: 255, alpha: 1 };

type Fit = ResizeRequest['fit'];
interface Row {
  rule: string;
  image: [number, number];
  width?: Size;
  height?: Size;
  fit?: Fit;
  /** The plan's mode and size; undefined: no resize. */
  plan?: [mode: 'scale' | 'crop' | 'canvas', width: number, height: number];
}

const LAND: [number, number] = [400, 300];
const PORT: [number, number] = [300, 400];

const ROWS: Row[] = [
  // rule 1: no side, no resize
  { rule: '1: nothing given', image: LAND },
  { rule: '1: fit alone', image: LAND, fit: 'bounds' },
  { rule: '1: both auto', image: PORT, width: AUTO, height: AUTO, fit: 'canvas' },
  // rule 2: crop with one side, the other side the image's, cut at the centre (never scaled)
  { rule: '2: crop, width', image: LAND, width: px(200), plan: ['crop', 200, 300] },
  { rule: '2: crop, height', image: PORT, height: px(200), plan: ['crop', 300, 200] },
  { rule: '2: crop, width larger than the image', image: LAND, width: px(600), plan: ['crop', 600, 300] },
  // rule 3: another fit with one side, or the other side auto: the aspect ratio kept
  { rule: '3: bounds, width', image: LAND, width: px(200), fit: 'bounds', plan: ['scale', 200, 150] },
  { rule: '3: cover, width', image: LAND, width: px(200), fit: 'cover', plan: ['scale', 200, 150] },
  { rule: '3: bounds, height', image: LAND, height: px(150), fit: 'bounds', plan: ['scale', 200, 150] },
  { rule: '3: cover, height enlarging', image: LAND, height: px(600), fit: 'cover', plan: ['scale', 800, 600] },
  { rule: '3: crop, other side auto', image: LAND, width: px(200), height: AUTO, plan: ['scale', 200, 150] },
  { rule: '3: crop, auto width', image: PORT, width: AUTO, height: px(100), plan: ['scale', 75, 100] },
  { rule: '3: rounded (249.75)', image: LAND, width: px(333), fit: 'bounds', plan: ['scale', 333, 250] },
  { rule: '3: never below 1 px', image: [4000, 10], width: px(100), fit: 'bounds', plan: ['scale', 100, 1] },
  { rule: '3: canvas, one side', image: LAND, width: px(200), fit: 'canvas', plan: ['canvas', 200, 150] },
  // rule 4: both sides with crop: exactly that size
  { rule: '4: crop to a square', image: LAND, width: px(200), height: px(200), plan: ['crop', 200, 200] },
  { rule: '4: crop, enlarging', image: PORT, width: px(600), height: px(500), plan: ['crop', 600, 500] },
  // rule 5: bounds inside, cover covering, canvas the box itself
  { rule: '5: bounds', image: LAND, width: px(200), height: px(200), fit: 'bounds', plan: ['scale', 200, 150] },
  {
    rule: '5: bounds, tall box',
    image: PORT,
    width: px(300),
    height: px(100),
    fit: 'bounds',
    plan: ['scale', 75, 100],
  },
  { rule: '5: cover', image: LAND, width: px(200), height: px(200), fit: 'cover', plan: ['scale', 267, 200] },
  {
    rule: '5: bounds of a portrait',
    image: PORT,
    width: px(200),
    height: px(200),
    fit: 'bounds',
    plan: ['scale', 150, 200],
  },
  {
    rule: '5: cover of a portrait',
    image: PORT,
    width: px(200),
    height: px(200),
    fit: 'cover',
    plan: ['scale', 200, 267],
  },
  {
    rule: '5: bounds, enlarging',
    image: LAND,
    width: px(800),
    height: px(900),
    fit: 'bounds',
    plan: ['scale', 800, 600],
  },
  {
    rule: '5: cover, enlarging to 800x900',
    image: LAND,
    width: px(800),
    height: px(900),
    fit: 'cover',
    plan: ['scale', 1200, 900],
  },
  {
    rule: '5: cover, enlarging',
    image: PORT,
    width: px(600),
    height: px(600),
    fit: 'cover',
    plan: ['scale', 600, 800],
  },
  { rule: '5: canvas', image: LAND, width: px(500), height: px(500), fit: 'canvas', plan: ['canvas', 500, 500] },
  {
    rule: '5: canvas, smaller',
    image: LAND,
    width: px(100),
    height: px(100),
    fit: 'canvas',
    plan: ['canvas', 100, 100],
  },
  // percentages scale both sides; the other side is the same percentage or auto
  { rule: 'percent, width', image: LAND, width: percent(50), plan: ['scale', 200, 150] },
  { rule: 'percent, height, other auto', image: PORT, width: AUTO, height: percent(150), plan: ['scale', 450, 600] },
  { rule: 'percent, with bounds', image: LAND, width: percent(25), fit: 'bounds', plan: ['scale', 100, 75] },
  { rule: 'percent, rounded', image: [333, 333], width: percent(50), plan: ['scale', 167, 167] },
  { rule: 'percent, each side rounded (133.2 x 99.9)', image: LAND, width: percent(33.3), plan: ['scale', 133, 100] },
  { rule: 'percent, height alone, bounds', image: PORT, height: percent(25), fit: 'bounds', plan: ['scale', 75, 100] },
];

describe('resize geometry: the contract’s rules as a table', () => {
  it.each(ROWS)('rule $rule', ({ image, width, height, fit, plan }) => {
    const request: ResizeRequest = { width, height, fit: fit ?? 'crop', crop: 'center' };
    const size = { width: image[0], height: image[1] };
    const made = planResize(request, size, { fill: WHITE });
    if (!plan) {
      expect(made).toBeUndefined();
      expect(targetSize(request, size)).toBeUndefined();
      return;
    }
    expect(made).toMatchObject({ mode: plan[0], width: plan[1], height: plan[2] });
  });

  it.each([
    { image: LAND, box: [200, 200], cover: [267, 200] },
    { image: PORT, box: [600, 500], cover: [600, 800] },
    { image: [1000, 1] as [number, number], box: [10, 10], cover: [10000, 10] },
  ])('a crop covers $box before it cuts: $cover', ({ image, box, cover }) => {
    const size = { width: image[0], height: image[1] };
    expect(coverSize(size, { width: box[0], height: box[1] })).toEqual({ width: cover[0], height: cover[1] });
  });

  it.each([
    { image: LAND, box: [500, 500], inner: [400, 300] },
    { image: LAND, box: [100, 100], inner: [100, 75] },
    { image: PORT, box: [300, 100], inner: [75, 100] },
  ])('a canvas of $box holds the image at $inner (never enlarged)', ({ image, box, inner }) => {
    const size = { width: image[0], height: image[1] };
    expect(canvasInner(size, { width: box[0], height: box[1] })).toEqual({ width: inner[0], height: inner[1] });
    const plan = planResize(
      { width: px(box[0]), height: px(box[1]), fit: 'canvas', crop: 'center' },
      { width: image[0], height: image[1] },
      { fill: WHITE },
    );
    expect(plan).toMatchObject({ mode: 'canvas', inner: { width: inner[0], height: inner[1] }, fill: WHITE });
  });

  it('upscale: 2x without a size, and the model only where the size grows', () => {
    const upscale = { mode: 'photo' as const };
    const size = { width: 400, height: 300 };
    const none: ResizeRequest = { fit: 'crop', crop: 'center' };
    expect(planResize(none, size, { upscale, fill: WHITE })).toEqual({
      mode: 'scale',
      width: 800,
      height: 600,
      upscale,
    });
    const down = planResize({ ...none, width: px(200), fit: 'bounds' }, size, { upscale, fill: WHITE });
    expect(down).toEqual({ mode: 'scale', width: 200, height: 150, upscale: undefined });
    const crop = planResize({ ...none, width: px(800), height: px(800), crop: 'smart' }, size, {
      upscale,
      fill: WHITE,
    });
    expect(crop).toEqual({ mode: 'crop', width: 800, height: 800, position: 'smart', upscale });
  });
});
