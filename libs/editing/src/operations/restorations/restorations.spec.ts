import { describe, expect, it } from 'vitest';
import { ServiceException } from '@app/common';
import { estimatePixelMemory, pipelineSteps, type EditPlan } from '@app/image-pipeline';
import { parseEditRequest } from '../../edit-request';
import { modelOperations } from '../../model-capabilities';
import { planBody, probeOf } from '../../plan-fixtures';
import '..';

const MIB = 1024 * 1024;
const JPEG_OUT: EditPlan = { encode: { format: 'jpeg', quality: 85, progressive: false }, colour: { space: 'auto' } };

const PHOTO = probeOf('jpeg', 1000, 800);

const request = (restorations: object, resizing?: object) =>
  parseEditRequest(
    { input: 'https://example.com/a.jpg', operations: { restorations, ...(resizing && { resizing }) } },
    { input: 'required' },
  );
const plan = (restorations: object, resizing?: object) =>
  planBody({ operations: { restorations, ...(resizing && { resizing }) } }, PHOTO);

describe('operations.restorations, a registered operation', () => {
  it('runs after privacy and before the background; its upscale model goes to the resize', () => {
    const names = pipelineSteps().map((step) => step.name);
    expect(names.indexOf('restorations')).toBe(names.indexOf('privacy') + 1);
    expect(names.indexOf('background')).toBe(names.indexOf('restorations') + 1);
    expect(plan({ decompress: 'auto', polish: true }).operations?.restorations).toEqual({
      decompress: 'auto',
      polish: true,
    });
    const upscaled = plan({ upscale: 'faces' }, { width: 2000, fit: 'bounds' });
    expect(upscaled.operations?.restorations).toBeUndefined();
    expect(upscaled.resize).toMatchObject({ width: 2000, height: 1600, upscale: { mode: 'faces' } });
  });

  it('refuses polish (422) whose target, the final size, is over 16 MP', () => {
    let error: unknown;
    try {
      plan({ polish: true }, { width: 5000, height: 4000 });
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(ServiceException);
    expect((error as ServiceException).details).toEqual({
      'operations.restorations.polish': ['the polish target would be 5000x4000 (20.00 MP), more than 16.00 MP'],
    });
    expect(() => plan({ polish: true }, { width: 4000, height: 4000 })).not.toThrow();
  });

  it('needs the super-resolution model for an upscale (naming the model) and for polish', () => {
    expect(modelOperations(request({ upscale: 'smart_resize', polish: true, decompress: 'strong' }))).toEqual([
      { path: 'operations.restorations.upscale', asked: 'smart_resize', needs: 'super-resolution' },
      { path: 'operations.restorations.polish', needs: 'super-resolution' },
    ]);
    expect(modelOperations(request({ decompress: 'strong' }))).toEqual([]);
  });

  it('names the operations that need a model in the processing order, outpaint in the resize’s place', () => {
    const operations = {
      generative: { style_transfer: { prompt: 'oil' } },
      resizing: { width: 800, height: 800, fit: 'outpaint' },
      restorations: { polish: true },
      privacy: { identity_crop: true },
    };
    const asked = parseEditRequest({ input: 'https://example.com/a.jpg', operations }, { input: 'required' });
    expect(modelOperations(asked).map(({ path }) => path)).toEqual([
      'operations.privacy.identity_crop',
      'operations.restorations.polish',
      'operations.resizing.fit',
      'operations.generative.style_transfer',
    ]);
  });

  it("counts polish's network output at 2x, held twice, and the materialised frames", () => {
    const probe = { format: 'jpeg' as const, width: 1024, height: 1024, space: 'srgb' as const };
    const polished: EditPlan = { ...JPEG_OUT, operations: { restorations: { polish: true } } };
    expect(estimatePixelMemory(probe, polished) / MIB).toBeCloseTo(48, 5);
    // with an upscale, whose network runs in the resizing phase after polish let go of its own: the larger counts
    const upscale = { mode: 'scale', width: 2048, height: 2048, upscale: { mode: 'photo' } } as const;
    // (flatten: materialised like polish, with nothing of its own)
    const upscaled: EditPlan = { ...JPEG_OUT, resize: upscale, flatten: { r: 255, g: 255, b: 255, alpha: 1 } };
    const both: EditPlan = { ...polished, resize: upscale };
    expect(estimatePixelMemory(probe, both)).toBe(estimatePixelMemory(probe, upscaled));
    const decompressed: EditPlan = { ...JPEG_OUT, operations: { restorations: { decompress: 'auto', polish: false } } };
    expect(estimatePixelMemory(probe, decompressed) / MIB).toBeCloseTo(16, 5);
  });
});
