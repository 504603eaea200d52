import { describe, expect, it } from 'vitest';
import { ServiceException } from '@app/common';
import type { ImageProbe } from '@app/image-pipeline';
import { parseEditRequest } from './edit-request';
import { planEdit } from './edit-planner';
import { MODEL_CAPABILITIES, ModelCapabilities, modelOperations, type ModelCapability } from './model-capabilities';

/** A test provider of the port: the given capabilities are installed, no model behind them (none is run). */
class Installed extends ModelCapabilities {
  constructor(private readonly capabilities: readonly ModelCapability[]) {
    super();
  }

  available(capability: ModelCapability): boolean {
    return this.capabilities.includes(capability);
  }
}

const probe: ImageProbe = {
  format: 'jpeg',
  width: 400,
  height: 300,
  orientation: 1,
  displayWidth: 400,
  displayHeight: 300,
  channels: 3,
  hasAlpha: false,
  space: 'srgb',
};

function plan(operations: unknown, installed: readonly ModelCapability[]) {
  const request = parseEditRequest({ input: 'https://example.com/a.jpg', operations }, { input: 'required' });
  return planEdit(request, probe, { maxPixels: 50_000_000, capabilities: new Installed(installed) });
}

function refusal(run: () => unknown): ServiceException {
  try {
    run();
  } catch (error) {
    if (error instanceof ServiceException) return error;
    throw error;
  }
  throw new Error('expected a ServiceException');
}

const OPERATIONS: [string, unknown, string, ModelCapability][] = [
  ['upscale faces', { restorations: { upscale: 'faces' } }, 'operations.restorations.upscale', 'super-resolution'],
  [
    'upscale smart_resize',
    { restorations: { upscale: 'smart_resize' } },
    'operations.restorations.upscale',
    'super-resolution',
  ],
  ['polish', { restorations: { polish: true } }, 'operations.restorations.polish', 'super-resolution'],
  ['background remove', { background: { remove: true } }, 'operations.background.remove', 'segmentation'],
  ['background blur', { background: { blur: true } }, 'operations.background.blur', 'segmentation'],
  ['fit outpaint', { resizing: { width: 600, fit: 'outpaint' } }, 'operations.resizing.fit', 'generative'],
  ['blur_car_plate', { privacy: { blur_car_plate: true } }, 'operations.privacy.blur_car_plate', 'text-detection'],
  ['identity_crop', { privacy: { identity_crop: true } }, 'operations.privacy.identity_crop', 'face-detection'],
  [
    'style_transfer',
    { generative: { style_transfer: { prompt: 'soft watercolour' } } },
    'operations.generative.style_transfer',
    'generative',
  ],
];

describe('the model capabilities port', () => {
  it.each(OPERATIONS)('%s: 501 while its model is absent', (_name, operations, path, needs) => {
    const others = MODEL_CAPABILITIES.filter((capability) => capability !== needs);
    const error = refusal(() => plan(operations, others));
    expect([error.codeName, error.status]).toEqual(['OPERATION_NOT_IMPLEMENTED', 501]);
    expect(error.message).toContain(`${path} (`);
    expect(error.message).toContain('not installed on this service');
    expect(error.details).toEqual({ [path]: [`needs a ${needs} model, which is not installed on this service`] });
  });

  it.each(OPERATIONS)('%s: planned once its model is installed', (_name, operations, _path, needs) => {
    const planned = plan(operations, [needs]);
    expect(planned.encode).toEqual({ format: 'jpeg', quality: 85, progressive: true });
  });

  it('names only the operations whose model is absent', () => {
    const operations = { background: { remove: true }, privacy: { identity_crop: true, blur_car_plate: true } };
    const error = refusal(() => plan(operations, ['segmentation', 'face-detection']));
    expect(Object.keys(error.details)).toEqual(['operations.privacy.blur_car_plate']);
  });

  it.each<[string, unknown]>([
    ['no operations', {}],
    ['polish and identity_crop false', { restorations: { polish: false }, privacy: { identity_crop: false } }],
    ['adjustments and a crop fit', { adjustments: { exposure: 10 }, resizing: { width: 200, fit: 'crop' } }],
  ])('needs no model: %s', (_name, operations) => {
    const request = parseEditRequest({ operations }, { input: 'absent' });
    expect(modelOperations(request)).toEqual([]);
    expect(plan(operations, []).encode.format).toBe('jpeg');
  });

  it('checks what needs the image size before the models (422 before 501)', () => {
    const operations = { restorations: { polish: true }, resizing: { width: 5000, height: 4000 } };
    const error = refusal(() => plan(operations, []));
    expect([error.codeName, Object.keys(error.details)]).toEqual(['VALIDATION', ['operations.restorations.polish']]);
  });
});
