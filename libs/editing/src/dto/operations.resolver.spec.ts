import { describe, expect, it } from 'vitest';
import { rejected } from '../../../../test/helpers/rejected';
import { parseEditRequest } from '../edit-request';
import '../operations';
import type { EditOperations, Resizing, SideLengths } from '../edit-request.model';
import type { Background } from '../operations/background/background.read';

const INPUT = 'https://images.example.com/shoe.jpg';
const CENTER_CROP = { type: 'crop', crop: 'center' } as const;
const AUTO = { kind: 'auto' } as const;
const px = (value: number) => ({ kind: 'px', value }) as const;
const pct = (value: number) => ({ kind: 'percent', value }) as const;
const sides = (unit: SideLengths['unit'], top: number, right: number, bottom: number, left: number) => ({
  unit,
  top,
  right,
  bottom,
  left,
});
const STYLE_PROMPT = { prompt: 'soft watercolour' };
const STYLE_DEFAULTS = { style_strength: 0.75, denoising_strength: 0.75, depth_strength: 1 };

function operations(value: Record<string, unknown>): EditOperations {
  return parseEditRequest({ input: INPUT, operations: value }, { input: 'required' }).operations;
}

/** The paths of the 422 that `value` as `operations` causes. */
async function refusedPaths(value: Record<string, unknown>): Promise<string[]> {
  const error = await rejected(Promise.resolve().then(() => operations(value)));
  expect(error.status).toBe(422);
  return Object.keys(error.details).sort();
}

const BY_REFERENCE = {
  style_reference_image: 'storage://styles/oil.jpg',
  style_strength: 1,
  denoising_strength: 0,
  depth_strength: 0.5,
};

describe('operations normalise', () => {
  it.each<[string, Record<string, unknown>, Resizing]>([
    ['pixel width, default fit', { width: 800 }, { width: px(800), fit: CENTER_CROP }],
    ['the largest pixel size', { width: 16383, height: 1 }, { width: px(16383), height: px(1), fit: CENTER_CROP }],
    [
      'same percentages',
      { width: '50%', height: '50%', fit: 'bounds' },
      { width: pct(50), height: pct(50), fit: { type: 'bounds' } },
    ],
    [
      'percentage and auto',
      { width: '12.5%', height: 'auto', fit: 'cover' },
      { width: pct(12.5), height: AUTO, fit: { type: 'cover' } },
    ],
    ['one percentage', { height: '1000%' }, { height: pct(1000), fit: CENTER_CROP }],
    [
      'auto and pixels',
      { width: 'auto', height: 600, fit: 'canvas' },
      { width: AUTO, height: px(600), fit: { type: 'canvas' } },
    ],
    ['no size (unchanged)', { fit: 'bounds' }, { fit: { type: 'bounds' } }],
    ['nothing', {}, { fit: CENTER_CROP }],
    ['fit crop by name', { width: 10, fit: 'crop' }, { width: px(10), fit: CENTER_CROP }],
    [
      'fit crop object without type',
      { width: 10, fit: { crop: 'smart' } },
      { width: px(10), fit: { type: 'crop', crop: 'smart' } },
    ],
    [
      'fit crop object with type',
      { width: 10, fit: { type: 'crop', crop: 'center' } },
      { width: px(10), fit: CENTER_CROP },
    ],
    [
      'fit {type: crop} without crop: center',
      { width: 10, fit: { type: 'crop' } },
      { width: px(10), fit: CENTER_CROP },
    ],
    ['fit {} (crop without crop): center', { width: 10, fit: {} }, { width: px(10), fit: CENTER_CROP }],
    ['fit bounds object', { width: 10, fit: { type: 'bounds' } }, { width: px(10), fit: { type: 'bounds' } }],
    ['fit cover object', { width: 10, fit: { type: 'cover' } }, { width: px(10), fit: { type: 'cover' } }],
    ['fit canvas object', { width: 10, fit: { type: 'canvas' } }, { width: px(10), fit: { type: 'canvas' } }],
    [
      'outpaint by name, both auto',
      { width: 'auto', height: 'auto', fit: 'outpaint' },
      { width: AUTO, height: AUTO, fit: { type: 'outpaint' } },
    ],
    ['outpaint object alone', { fit: { type: 'outpaint' } }, { fit: { type: 'outpaint' } }],
    [
      'outpaint by percentages',
      { fit: { type: 'outpaint', feathering: '15%', outpaint_by: '10% 5%' } },
      { fit: { type: 'outpaint', feathering: 15, outpaint_by: sides('percent', 5, 10, 5, 10) } },
    ],
    [
      'outpaint by pixels, largest feathering',
      { width: 2000, fit: { type: 'outpaint', feathering: '50%', outpaint_by: '120px' } },
      { width: px(2000), fit: { type: 'outpaint', feathering: 50, outpaint_by: sides('px', 120, 120, 120, 120) } },
    ],
    [
      'outpaint by two pixel values',
      { fit: { type: 'outpaint', outpaint_by: '20px 10px', feathering: '0%' } },
      { fit: { type: 'outpaint', feathering: 0, outpaint_by: sides('px', 10, 20, 10, 20) } },
    ],
  ])('resizing: %s', (_name, resizing, expected) => {
    expect(operations({ resizing })).toEqual({ resizing: expected });
  });

  it.each<[string, Record<string, unknown>, EditOperations]>([
    [
      'restorations',
      { restorations: { upscale: 'faces', decompress: 'auto', polish: true } },
      { registered: { restorations: { upscale: 'faces', decompress: 'auto', polish: true } } },
    ],
    ['empty restorations', { restorations: {} }, { registered: { restorations: { polish: false } } }],
    [
      'hdr as an integer',
      { adjustments: { hdr: 60 } },
      { registered: { adjustments: { hdr: { intensity: 60, stitching: false } } } },
    ],
    [
      'hdr as an empty object',
      { adjustments: { hdr: {} } },
      { registered: { adjustments: { hdr: { intensity: 100, stitching: false } } } },
    ],
    [
      'hdr as an object',
      { adjustments: { hdr: { intensity: 0, stitching: true } } },
      { registered: { adjustments: { hdr: { intensity: 0, stitching: true } } } },
    ],
    [
      'adjustments at their bounds',
      { adjustments: { exposure: -100, saturation: 100, contrast: 0, sharpness: 100 } },
      { registered: { adjustments: { exposure: -100, saturation: 100, contrast: 0, sharpness: 100 } } },
    ],
    ['padding N%', { padding: '50%' }, { registered: { padding: sides('percent', 50, 50, 50, 50) } }],
    ['padding N% M%', { padding: '10% 5%' }, { registered: { padding: sides('percent', 5, 10, 5, 10) } }],
    ['padding Npx', { padding: '0px' }, { registered: { padding: sides('px', 0, 0, 0, 0) } }],
    ['padding Npx Mpx', { padding: '20px 10px' }, { registered: { padding: sides('px', 10, 20, 10, 20) } }],
    ['padding Tpx Rpx Bpx Lpx', { padding: '1px 2px 3px 4px' }, { registered: { padding: sides('px', 1, 2, 3, 4) } }],
    ['empty privacy', { privacy: {} }, { registered: { privacy: { blur_car_plate: false, identity_crop: false } } }],
    [
      'privacy flags',
      { privacy: { blur_car_plate: true, identity_crop: true } },
      { registered: { privacy: { blur_car_plate: true, identity_crop: true } } },
    ],
    ['empty generative', { generative: {} }, { registered: { generative: {} } }],
    [
      'style transfer by prompt',
      { generative: { style_transfer: { prompt: 'watercolour' } } },
      { registered: { generative: { style_transfer: { prompt: 'watercolour', ...STYLE_DEFAULTS } } } },
    ],
    [
      'style transfer by reference',
      // every member given: read as it came
      { generative: { style_transfer: BY_REFERENCE } },
      { registered: { generative: { style_transfer: BY_REFERENCE } } },
    ],
    [
      'style transfer beside remove and blur false',
      { background: { remove: false, blur: false }, generative: { style_transfer: { prompt: 'oil' } } },
      { registered: { background: {}, generative: { style_transfer: { prompt: 'oil', ...STYLE_DEFAULTS } } } },
    ],
  ])('%s', (_name, value, expected) => {
    expect(operations(value)).toEqual(expected);
  });

  it.each<[string, Record<string, unknown>, Background]>([
    ['remove true', { remove: true }, { remove: { category: 'general', clipping: false } }],
    ['remove false', { remove: false }, {}],
    [
      'remove by category',
      { remove: { category: 'cars', clipping: true } },
      { remove: { category: 'cars', clipping: true } },
    ],
    ['remove as an empty object', { remove: {} }, { remove: { category: 'general', clipping: false } }],
    [
      'remove selectively',
      { remove: { selective: { object_to_keep: 'red car' } } },
      { remove: { selective: { object_to_keep: 'red car' }, clipping: false } },
    ],
    ['a short hex colour', { color: '#aBc' }, { color: { kind: 'rgb', r: 170, g: 187, b: 204 } }],
    ['a long hex colour', { color: '#FF8000' }, { color: { kind: 'rgb', r: 255, g: 128, b: 0 } }],
    ['transparent', { color: 'transparent' }, { color: { kind: 'transparent' } }],
    ['blur true', { blur: true }, { blur: { type: 'regular', level: 'medium', category: 'general' } }],
    ['blur false', { blur: false }, {}],
    [
      'blur by category',
      { blur: { type: 'lens', level: 'high', category: 'products' } },
      { blur: { type: 'lens', level: 'high', category: 'products' } },
    ],
    [
      'blur selectively',
      { blur: { level: 'low', selective: { object_to_keep: 'cup' } } },
      { blur: { type: 'regular', level: 'low', selective: { object_to_keep: 'cup' } } },
    ],
  ])('background: %s', (_name, background, expected) => {
    expect(operations({ background })).toEqual({ registered: { background: expected } });
  });
});

describe('operations refusals', () => {
  it.each<[string, unknown]>([
    ['a string', 'resize'],
    ['an array', []],
    ['a number', 1],
  ])('refuses operations that are %s', async (_name, value) => {
    const error = await rejected(
      Promise.resolve().then(() => parseEditRequest({ input: INPUT, operations: value }, { input: 'required' })),
    );
    expect(Object.keys(error.details)).toEqual(['operations']);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['upscale', { restorations: { upscale: 'ai' } }, 'operations.restorations.upscale'],
    ['decompress', { restorations: { decompress: 'light' } }, 'operations.restorations.decompress'],
    ['polish', { restorations: { polish: 'yes' } }, 'operations.restorations.polish'],
    ['a group that is not an object', { restorations: true }, 'operations.restorations'],
    ['width 0', { resizing: { width: 0 } }, 'operations.resizing.width'],
    ['width over 16383', { resizing: { width: 16384 } }, 'operations.resizing.width'],
    ['fractional width', { resizing: { width: 1.5 } }, 'operations.resizing.width'],
    ['width as a numeric string', { resizing: { width: '100' } }, 'operations.resizing.width'],
    ['width in px', { resizing: { width: '100px' } }, 'operations.resizing.width'],
    ['width 0%', { resizing: { width: '0%' } }, 'operations.resizing.width'],
    ['width over 1000%', { resizing: { width: '1001%' } }, 'operations.resizing.width'],
    ['negative percentage', { resizing: { width: '-5%' } }, 'operations.resizing.width'],
    ['AUTO', { resizing: { height: 'AUTO' } }, 'operations.resizing.height'],
    ['boolean height', { resizing: { height: true } }, 'operations.resizing.height'],
    ['percentage and pixels', { resizing: { width: '50%', height: 400 } }, 'operations.resizing'],
    ['pixels and percentage', { resizing: { width: 300, height: '20%' } }, 'operations.resizing'],
    ['different percentages', { resizing: { width: '50%', height: '25%' } }, 'operations.resizing'],
    ['both auto', { resizing: { width: 'auto', height: 'auto' } }, 'operations.resizing'],
    ['auto alone', { resizing: { width: 'auto' } }, 'operations.resizing'],
    [
      'both auto with bounds',
      { resizing: { width: 'auto', height: 'auto', fit: { type: 'bounds' } } },
      'operations.resizing',
    ],
    ['unknown fit name', { resizing: { width: 5, fit: 'stretch' } }, 'operations.resizing.fit'],
    ['fit as a number', { resizing: { width: 5, fit: 3 } }, 'operations.resizing.fit'],
    ['unknown fit type', { resizing: { width: 5, fit: { type: 'zoom' } } }, 'operations.resizing.fit.type'],
    ['crop position', { resizing: { width: 5, fit: { crop: 'left' } } }, 'operations.resizing.fit.crop'],
    [
      'feathering over 50%',
      { resizing: { fit: { type: 'outpaint', feathering: '51%' } } },
      'operations.resizing.fit.feathering',
    ],
    [
      'feathering without %',
      { resizing: { fit: { type: 'outpaint', feathering: 15 } } },
      'operations.resizing.fit.feathering',
    ],
    [
      'outpaint_by over 50%',
      { resizing: { fit: { type: 'outpaint', outpaint_by: '10% 60%' } } },
      'operations.resizing.fit.outpaint_by',
    ],
    [
      'outpaint_by mixing units',
      { resizing: { fit: { type: 'outpaint', outpaint_by: '10px 10%' } } },
      'operations.resizing.fit.outpaint_by',
    ],
    [
      'outpaint_by with four values',
      { resizing: { fit: { type: 'outpaint', outpaint_by: '1px 2px 3px 4px' } } },
      'operations.resizing.fit.outpaint_by',
    ],
    [
      'outpaint_by with three values',
      { resizing: { fit: { type: 'outpaint', outpaint_by: '1% 2% 3%' } } },
      'operations.resizing.fit.outpaint_by',
    ],
    ['hdr over 100', { adjustments: { hdr: 101 } }, 'operations.adjustments.hdr'],
    ['negative hdr', { adjustments: { hdr: -1 } }, 'operations.adjustments.hdr'],
    ['fractional hdr', { adjustments: { hdr: 50.5 } }, 'operations.adjustments.hdr'],
    ['hdr as a word', { adjustments: { hdr: 'high' } }, 'operations.adjustments.hdr'],
    ['hdr intensity', { adjustments: { hdr: { intensity: 101 } } }, 'operations.adjustments.hdr.intensity'],
    ['hdr stitching', { adjustments: { hdr: { stitching: 'yes' } } }, 'operations.adjustments.hdr.stitching'],
    ['exposure over 100', { adjustments: { exposure: 101 } }, 'operations.adjustments.exposure'],
    ['saturation under -100', { adjustments: { saturation: -101 } }, 'operations.adjustments.saturation'],
    ['fractional contrast', { adjustments: { contrast: 1.5 } }, 'operations.adjustments.contrast'],
    ['negative sharpness', { adjustments: { sharpness: -1 } }, 'operations.adjustments.sharpness'],
    ['sharpness as a string', { adjustments: { sharpness: '50' } }, 'operations.adjustments.sharpness'],
    ['remove as a word', { background: { remove: 'yes' } }, 'operations.background.remove'],
    ['remove category', { background: { remove: { category: 'people' } } }, 'operations.background.remove.category'],
    ['remove clipping', { background: { remove: { clipping: 'yes' } } }, 'operations.background.remove.clipping'],
    [
      'object_to_keep too short',
      { background: { remove: { selective: { object_to_keep: 'ab' } } } },
      'operations.background.remove.selective.object_to_keep',
    ],
    [
      'object_to_keep too long',
      { background: { remove: { selective: { object_to_keep: 'a'.repeat(129) } } } },
      'operations.background.remove.selective.object_to_keep',
    ],
    [
      'object_to_keep missing',
      { background: { remove: { selective: {} } } },
      'operations.background.remove.selective.object_to_keep',
    ],
    [
      'selective as a string',
      { background: { remove: { selective: 'red car' } } },
      'operations.background.remove.selective',
    ],
    ['colour by name', { background: { color: 'red' } }, 'operations.background.color'],
    ['colour with four digits', { background: { color: '#abcd' } }, 'operations.background.color'],
    ['colour with bad digits', { background: { color: '#ggg' } }, 'operations.background.color'],
    ['colour without #', { background: { color: 'ffffff' } }, 'operations.background.color'],
    ['blur as a number', { background: { blur: 5 } }, 'operations.background.blur'],
    ['blur type', { background: { blur: { type: 'gaussian' } } }, 'operations.background.blur.type'],
    ['blur level', { background: { blur: { level: 'max' } } }, 'operations.background.blur.level'],
    ['blur category', { background: { blur: { category: 'people' } } }, 'operations.background.blur.category'],
    ['padding over 50%', { padding: '60%' }, 'operations.padding'],
    ['padding with two spaces', { padding: '10%  5%' }, 'operations.padding'],
    ['padding without a unit', { padding: '10' }, 'operations.padding'],
    ['padding as a number', { padding: 10 }, 'operations.padding'],
    ['padding mixing units', { padding: '10px 5%' }, 'operations.padding'],
    ['padding with four percentages', { padding: '1% 2% 3% 4%' }, 'operations.padding'],
    ['padding with three values', { padding: '1px 2px 3px' }, 'operations.padding'],
    ['padding with five values', { padding: '1px 2px 3px 4px 5px' }, 'operations.padding'],
    ['padding over 65535px', { padding: '70000px' }, 'operations.padding'],
    ['fractional pixels', { padding: '1.5px' }, 'operations.padding'],
    ['blur_car_plate', { privacy: { blur_car_plate: 'yes' } }, 'operations.privacy.blur_car_plate'],
    ['identity_crop', { privacy: { identity_crop: 1 } }, 'operations.privacy.identity_crop'],
    ['style transfer as a string', { generative: { style_transfer: 'oil' } }, 'operations.generative.style_transfer'],
    [
      'style transfer without reference or prompt',
      { generative: { style_transfer: { style_strength: 0.5 } } },
      'operations.generative.style_transfer',
    ],
    [
      'style_strength over 1',
      { generative: { style_transfer: { ...STYLE_PROMPT, style_strength: 1.5 } } },
      'operations.generative.style_transfer.style_strength',
    ],
    [
      'negative denoising_strength',
      { generative: { style_transfer: { ...STYLE_PROMPT, denoising_strength: -0.1 } } },
      'operations.generative.style_transfer.denoising_strength',
    ],
    [
      'depth_strength as a string',
      { generative: { style_transfer: { ...STYLE_PROMPT, depth_strength: '1' } } },
      'operations.generative.style_transfer.depth_strength',
    ],
    [
      'reference by file URL',
      { generative: { style_transfer: { style_reference_image: 'file:///etc/passwd' } } },
      'operations.generative.style_transfer.style_reference_image',
    ],
    [
      'reference folder',
      { generative: { style_transfer: { style_reference_image: 'storage://styles/' } } },
      'operations.generative.style_transfer.style_reference_image',
    ],
    [
      'prompt too short',
      { generative: { style_transfer: { prompt: 'ab' } } },
      'operations.generative.style_transfer.prompt',
    ],
  ])('refuses %s', async (_name, value, path) => {
    expect(await refusedPaths(value)).toEqual([path]);
  });

  it('reports style_transfer with background removal beside the problems of both', async () => {
    const value = {
      background: { remove: { category: 'people' }, color: 'nope' },
      generative: { style_transfer: { prompt: 'oil paint', depth_strength: 3 } },
    };
    expect(await refusedPaths(value)).toEqual([
      'operations.background.color',
      'operations.background.remove.category',
      'operations.generative.style_transfer',
      'operations.generative.style_transfer.depth_strength',
    ]);
  });
});
