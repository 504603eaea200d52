import { plainToInstance } from 'class-transformer';
import { describe, expect, it } from 'vitest';
import { ServiceException } from '@app/common';
import { EditRequestDto } from './dto/edit-request.dto';
import { parseEditRequest } from './edit-request';
import { backgroundOf } from './operations/background/background.operation';

const INPUT = 'https://images.example.com/shoe.jpg';
const CENTER_CROP = { type: 'crop', crop: 'center' } as const;

/** The error_details of the 422 that `body` must cause. */
function refusal(body: unknown, input: 'required' | 'absent' = 'required'): Record<string, unknown> {
  let error: unknown;
  try {
    parseEditRequest(body, { input });
  } catch (caught) {
    error = caught;
  }
  expect(error).toBeInstanceOf(ServiceException);
  const exception = error as ServiceException;
  expect(exception.status).toBe(422);
  expect(exception.definition.code).toBe('9000');
  for (const messages of Object.values(exception.details)) {
    expect(messages).toEqual([expect.stringMatching(/\w{3}/)]);
  }
  return exception.details;
}

function refusedPaths(body: unknown, input: 'required' | 'absent' = 'required'): string[] {
  return Object.keys(refusal(body, input)).sort();
}

describe('parseEditRequest: the request as a whole', () => {
  it('fills empty operations and output for a bare input', () => {
    expect(parseEditRequest({ input: INPUT }, { input: 'required' })).toEqual({
      input: INPUT,
      operations: {},
      output: {},
    });
  });

  it.each([INPUT, 'http://10.0.0.8:9000/a.png', 'storage://catalogue/products/red shoe.jpg'])(
    'takes input %s',
    (input) => {
      expect(parseEditRequest({ input }, { input: 'required' }).input).toBe(input);
    },
  );

  it('treats null members as absent', () => {
    const body = { input: INPUT, operations: { resizing: { width: 10, height: null, fit: null } }, output: null };
    expect(parseEditRequest(body, { input: 'required' })).toEqual({
      input: INPUT,
      operations: { resizing: { width: { kind: 'px', value: 10 }, fit: CENTER_CROP } },
      output: {},
    });
  });

  it('parses an upload request without input', () => {
    const request = parseEditRequest({ operations: { padding: '5%' } }, { input: 'absent' });
    expect(request).toEqual({
      operations: { registered: { padding: { unit: 'percent', top: 5, right: 5, bottom: 5, left: 5 } } },
      output: {},
    });
    expect(request).not.toHaveProperty('input');
  });

  it('accepts the DTO instance the global pipe hands to the controller', () => {
    const body = plainToInstance(EditRequestDto, { input: INPUT, operations: { adjustments: { hdr: 60 } } });
    expect(parseEditRequest(body, { input: 'required' }).operations).toEqual({
      registered: { adjustments: { hdr: { intensity: 60, stitching: false } } },
    });
  });

  it('keeps a transparent background with a format that holds alpha', () => {
    const request = parseEditRequest(
      { input: INPUT, operations: { background: { color: 'transparent' } }, output: { format: 'png' } },
      { input: 'required' },
    );
    expect(backgroundOf(request.operations)?.color).toEqual({ kind: 'transparent' });
  });
});

const SELECT = { object_to_keep: 'red car' };
const STYLE = { prompt: 'soft watercolour' };

describe('parseEditRequest: refusals name their paths', () => {
  it.each([null, undefined, [], 'text', 5, true])('refuses the body %j', (body) => {
    expect(refusal(body)).toEqual({ body: ['must be a JSON object'] });
  });

  it.each<[string, unknown]>([
    ['missing', undefined],
    ['null', null],
    ['empty', ''],
    ['a number', 5],
    ['not a URL', 'shoe.jpg'],
    ['another scheme', 'ftp://images.example.com/a.jpg'],
    ['a file URL', 'file:///etc/passwd'],
    ['with spaces', 'https://images.example.com/a b.jpg'],
    ['longer than 512', `https://images.example.com/${'a'.repeat(490)}.jpg`],
    ['a storage folder', 'storage://catalogue/products/'],
    ['a bad storage name', 'storage://../a.jpg'],
    ['a storage path stepping up', 'storage://catalogue/../a.jpg'],
  ])('refuses input: %s', (_name, input) => {
    expect(refusedPaths({ input })).toEqual(['input']);
  });

  it('refuses input on uploads', () => {
    expect(refusal({ input: INPUT, operations: {} }, 'absent')).toEqual({
      input: ['input must not be given: the image is the uploaded file'],
    });
  });

  it.each<[string, Record<string, unknown>, string[]]>([
    ['top level', { extra: 1 }, ['extra']],
    ['operations', { operations: { crop: {} } }, ['operations.crop']],
    ['restorations', { operations: { restorations: { denoise: true } } }, ['operations.restorations.denoise']],
    ['resizing', { operations: { resizing: { scale: 2 } } }, ['operations.resizing.scale']],
    [
      'crop fit',
      { operations: { resizing: { width: 5, fit: { crop: 'smart', gravity: 'north' } } } },
      ['operations.resizing.fit.gravity'],
    ],
    [
      'outpaint fit',
      { operations: { resizing: { fit: { type: 'outpaint', seed: 1 } } } },
      ['operations.resizing.fit.seed'],
    ],
    ['adjustments', { operations: { adjustments: { gamma: 2 } } }, ['operations.adjustments.gamma']],
    ['hdr', { operations: { adjustments: { hdr: { strength: 2 } } } }, ['operations.adjustments.hdr.strength']],
    ['background', { operations: { background: { shadow: true } } }, ['operations.background.shadow']],
    ['remove', { operations: { background: { remove: { feather: 2 } } } }, ['operations.background.remove.feather']],
    [
      'remove selective',
      { operations: { background: { remove: { selective: { ...SELECT, x: 1 } } } } },
      ['operations.background.remove.selective.x'],
    ],
    ['blur', { operations: { background: { blur: { radius: 2 } } } }, ['operations.background.blur.radius']],
    [
      'blur selective',
      { operations: { background: { blur: { selective: { ...SELECT, x: 1 } } } } },
      ['operations.background.blur.selective.x'],
    ],
    ['privacy', { operations: { privacy: { blur_faces: true } } }, ['operations.privacy.blur_faces']],
    ['generative', { operations: { generative: { inpaint: {} } } }, ['operations.generative.inpaint']],
    [
      'style transfer',
      { operations: { generative: { style_transfer: { ...STYLE, seed: 1 } } } },
      ['operations.generative.style_transfer.seed'],
    ],
    ['output', { output: { name: 'a.jpg' } }, ['output.name']],
    ['format options', { output: { format: { type: 'jpeg', optimize: true } } }, ['output.format.optimize']],
    [
      'compression',
      { output: { format: { type: 'webp', compression: { type: 'lossy', effort: 4 } } } },
      ['output.format.compression.effort'],
    ],
    ['metadata', { output: { metadata: { author: 'me' } } }, ['output.metadata.author']],
    [
      'color space',
      { output: { metadata: { color_space: { type: 'CMYK', intent: 'perceptual' } } } },
      ['output.metadata.color_space.intent'],
    ],
  ])('refuses an unknown member in %s', (_level, body, paths) => {
    const details = refusal({ input: INPUT, ...body });
    expect(Object.keys(details)).toEqual(paths);
    expect(details[paths[0]]).toEqual([expect.stringMatching(/no other members are allowed/)]);
  });
});

describe('parseEditRequest: an unknown member names the closest known one', () => {
  const suggests = (subject: string, name: string) =>
    `${subject}; did you mean "${name}"? No other members are allowed`;
  it.each<[string, Record<string, unknown>, string, string]>([
    ['top level', { operation: {} }, 'operation', suggests('unknown member', 'operations')],
    ['operations', { operations: { resizng: {} } }, 'operations.resizng', suggests('unknown member', 'resizing')],
    [
      'resizing',
      { operations: { resizing: { widht: 5 } } },
      'operations.resizing.widht',
      suggests('unknown member', 'width'),
    ],
    [
      'a fit variant: its own members only',
      { operations: { resizing: { width: 5, fit: { type: 'outpaint', feathring: '5%' } } } },
      'operations.resizing.fit.feathring',
      suggests('feathring is not a member of fit type "outpaint"', 'feathering'),
    ],
    [
      'a format variant',
      { output: { format: { type: 'jpeg', qualty: 80 } } },
      'output.format.qualty',
      suggests('qualty is not a member of format type "jpeg"', 'quality'),
    ],
    [
      "a member of another variant, far from this one's",
      { operations: { resizing: { width: 5, fit: { type: 'bounds', crop: 'smart' } } } },
      'operations.resizing.fit.crop',
      'crop is not a member of fit type "bounds"; no other members are allowed',
    ],
    [
      'a far-off name',
      { operations: { resizing: { scale: 2 } } },
      'operations.resizing.scale',
      'unknown member; no other members are allowed',
    ],
  ])('%s', (_level, body, path, message) => {
    expect(refusal({ input: INPUT, ...body })).toEqual({ [path]: [message] });
  });
});

describe('parseEditRequest: unions resolve to one variant', () => {
  it.each<[string, Record<string, unknown>, string, RegExp]>([
    [
      'a crop member on a bounds fit',
      { operations: { resizing: { width: 5, fit: { type: 'bounds', crop: 'smart' } } } },
      'operations.resizing.fit.crop',
      /not a member of fit type "bounds"/,
    ],
    [
      'outpaint members on a crop fit',
      { operations: { resizing: { width: 5, fit: { crop: 'smart', feathering: '5%' } } } },
      'operations.resizing.fit.feathering',
      /not a member of fit type "crop"/,
    ],
    [
      'category beside selective in remove',
      { operations: { background: { remove: { category: 'cars', selective: SELECT } } } },
      'operations.background.remove.category',
      /cannot be combined with selective/,
    ],
    [
      'category beside selective in blur',
      { operations: { background: { blur: { category: 'general', selective: SELECT } } } },
      'operations.background.blur.category',
      /cannot be combined with selective/,
    ],
    [
      'a png member on jpeg options',
      { output: { format: { type: 'jpeg', compression: 'fast' } } },
      'output.format.compression',
      /not a member of format type "jpeg"/,
    ],
    [
      'a jpeg member on png options',
      { output: { format: { type: 'png', quality: 80 } } },
      'output.format.quality',
      /not a member of format type "png"/,
    ],
    [
      'quality on lossless compression',
      { output: { format: { type: 'webp', compression: { type: 'lossless', quality: 80 } } } },
      'output.format.compression.quality',
      /not a member of compression type "lossless"/,
    ],
  ])('refuses %s', (_name, body, path, message) => {
    expect(refusal({ input: INPUT, ...body })).toEqual({ [path]: [expect.stringMatching(message)] });
  });
});

describe('parseEditRequest: rules across members', () => {
  it.each<[string, Record<string, unknown>]>([
    ['remove', { remove: true }],
    ['selective remove', { remove: { selective: SELECT } }],
    ['blur', { blur: true }],
    ['blur options', { blur: { type: 'lens' } }],
  ])('refuses style_transfer with background %s', (_name, background) => {
    const body = { input: INPUT, operations: { background, generative: { style_transfer: STYLE } } };
    expect(refusal(body)).toEqual({
      'operations.generative.style_transfer': ['style_transfer cannot be combined with background remove or blur'],
    });
  });

  it.each<[string, unknown]>([
    ['jpeg', 'jpeg'],
    ['jpeg options', { type: 'jpeg', quality: 90 }],
  ])('refuses a transparent background with %s output', (_name, format) => {
    const body = { input: INPUT, operations: { background: { color: 'transparent' } }, output: { format } };
    expect(refusedPaths(body)).toEqual(['operations.background.color']);
  });

  it('reports every problem of one request in one 422', () => {
    const body = {
      extra: true,
      input: 'ftp://example.com/a.jpg',
      operations: {
        resizing: { width: 0, height: '50%', fit: { type: 'outpaint', feathering: '80%' } },
        adjustments: { hdr: { intensity: 200 }, exposure: 500 },
        background: { remove: { category: 'cars', selective: { object_to_keep: 'x' } }, color: 'transparent' },
        padding: '70%',
        generative: { style_transfer: { prompt: 'oil paint', style_strength: 2 } },
      },
      output: { format: { type: 'jpeg', quality: 0 }, metadata: { dpi: -1, color_space: 'CMYK' } },
    };
    const details = refusal(body);
    expect(Object.keys(details).sort()).toEqual(
      [
        'extra',
        'input',
        'operations.resizing.width',
        'operations.resizing.fit.feathering',
        'operations.adjustments.hdr.intensity',
        'operations.adjustments.exposure',
        'operations.background.remove.category',
        'operations.background.remove.selective.object_to_keep',
        'operations.background.color',
        'operations.padding',
        'operations.generative.style_transfer',
        'operations.generative.style_transfer.style_strength',
        'output.format.quality',
        'output.metadata.dpi',
      ].sort(),
    );
  });

  it('writes the paths into the error message', () => {
    let error: ServiceException | undefined;
    try {
      parseEditRequest({ input: INPUT, operations: { resizing: { width: -3 } } }, { input: 'required' });
    } catch (caught) {
      error = caught as ServiceException;
    }
    expect(error?.message).toMatch(/^operations\.resizing\.width must be an integer from 1 to 16383/);
  });
});
