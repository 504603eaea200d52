import { describe, expect, it } from 'vitest';
import type { EditPlan, ImageProbe } from '@app/image-pipeline';
import { ServiceException } from '@app/common';
import './operations';
import type { PlanContext } from './edit-planner';
import { Installed, planBody, probeOf } from './plan-fixtures';

/*
 * The planner as a table: a request body (as a client sends it) and an input's header in, the plan's parts or
 * the 422 / 501 out. Sizes, defaults and refusals that need the image's size are decided here; the pixels are
 * the pipeline's specs' business (libs/image-pipeline), the request's shape the resolvers' (dto/*.spec.ts).
 */

const probe = probeOf;
const plan = planBody;

/** The error a plan throws: its HTTP status and the paths of its details. */
function refusal(body: object, input: ImageProbe, context: Partial<PlanContext> = {}) {
  try {
    plan(body, input, context);
  } catch (error) {
    if (!(error instanceof ServiceException)) throw error;
    return { status: error.definition.status, paths: Object.keys(error.details ?? {}) };
  }
  throw new Error('planned without a refusal');
}

const JPEG = probe('jpeg', 1000, 800);
const PNG_ALPHA = probe('png', 400, 400, true);

describe('planEdit: what a request becomes for an image', () => {
  it.each<[string, object, ImageProbe, Partial<EditPlan>]>([
    [
      'no operation: the input format, no step',
      {},
      JPEG,
      { encode: { format: 'jpeg', quality: 85, progressive: true } },
    ],
    ['gif input: written as png', {}, probe('gif', 10, 10), { encode: { format: 'png', compression: 'optimal' } }],
    [
      'padding in percent: pixels of each side',
      { operations: { padding: '10% 5%' } },
      JPEG,
      {
        operations: {
          padding: {
            sides: { top: 40, right: 100, bottom: 40, left: 100 },
            fill: { r: 255, g: 255, b: 255, alpha: 1 },
          },
        },
      },
    ],
    [
      'alpha kept in png: padding transparent',
      { operations: { padding: '10px' } },
      PNG_ALPHA,
      {
        operations: {
          padding: { sides: { top: 10, right: 10, bottom: 10, left: 10 }, fill: { r: 0, g: 0, b: 0, alpha: 0 } },
        },
      },
    ],
    [
      'alpha into jpeg: flattened on white',
      { output: { format: 'jpeg' } },
      PNG_ALPHA,
      { flatten: { r: 255, g: 255, b: 255, alpha: 1 } },
    ],
    [
      "width alone with the default crop fit: the height is the input's, cut at the centre",
      { operations: { resizing: { width: 500 } } },
      JPEG,
      { resize: { mode: 'crop', width: 500, height: 800, position: 'center' } },
    ],
    [
      'bounds: the largest size inside the box',
      { operations: { resizing: { width: 500, height: 500, fit: 'bounds' } } },
      JPEG,
      { resize: { mode: 'scale', width: 500, height: 400 } },
    ],
    [
      'outpaint 10% 5%: the grown canvas, the image inside, the feather 3%',
      { operations: { resizing: { fit: { type: 'outpaint', outpaint_by: '10% 5%' } } } },
      JPEG,
      {
        outpaint: {
          width: 1200,
          height: 880,
          inner: { left: 100, top: 40, width: 1000, height: 800 },
          feather: { x: 30, y: 24 },
        },
      },
    ],
    [
      'adjustments: the absent ones 0',
      { operations: { adjustments: { exposure: 20, hdr: 60 } } },
      JPEG,
      {
        operations: {
          adjustments: {
            exposure: 20,
            saturation: 0,
            contrast: 0,
            sharpness: 0,
            hdr: { intensity: 60, stitching: false },
          },
        },
      },
    ],
    ['dpi written', { output: { metadata: { dpi: 300 } } }, JPEG, { dpi: 300 }],
    [
      'a watermark planned at the final size',
      { operations: { resizing: { width: 500 }, watermark: { text: 'x', scale: 0.5 } } },
      JPEG,
      { operations: { watermark: expect.objectContaining({ width: 250, position: 'south_east' }) } },
    ],
  ])('%s', (_name, body, input, expected) => {
    expect(plan(body, input)).toMatchObject(expected);
  });
});

describe('planEdit: what it refuses once the image size is known', () => {
  it.each<[string, object, ImageProbe, Partial<PlanContext>, { status: number; paths: string[] }]>([
    [
      'padding over half a side',
      { operations: { padding: '600px' } },
      JPEG,
      {},
      { status: 422, paths: ['operations.padding'] },
    ],
    [
      'a result over the pixel limit',
      { operations: { resizing: { width: '400%' } } },
      JPEG,
      { maxPixels: 4_000_000 },
      { status: 422, paths: ['operations.resizing'] },
    ],
    [
      'polish over 16 MP',
      { operations: { restorations: { polish: true }, resizing: { width: 5000, height: 4000 } } },
      JPEG,
      {},
      { status: 422, paths: ['operations.restorations.polish'] },
    ],
    [
      'transparency in jpeg, the format picked from the input',
      { operations: { background: { color: 'transparent' } } },
      JPEG,
      {},
      { status: 422, paths: ['operations.background.color'] },
    ],
    [
      'a model that is not installed: 501 naming each operation',
      { operations: { background: { remove: true }, privacy: { blur_car_plate: true } } },
      JPEG,
      { capabilities: new Installed([]) },
      {
        status: 501,
        paths: ['operations.background.remove', 'operations.privacy.blur_car_plate'],
      },
    ],
  ])('%s', (_name, body, input, context, expected) => {
    const found = refusal(body, input, context);
    expect({ ...found, paths: found.paths.sort() }).toEqual({ ...expected, paths: expected.paths.sort() });
  });
});
