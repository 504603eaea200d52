import { describe, expect, it } from 'vitest';
import { ServiceException } from '@app/common';
import { estimatePixelMemory, pipelineSteps, type EditPlan } from '@app/image-pipeline';
import { modelOperations } from '../../model-capabilities';
import { planBody, probeOf } from '../../plan-fixtures';
import { parseEditRequest } from '../../edit-request';
import { BLUR_STRENGTH } from './background-plan';
import type { BackgroundPart } from './background.operation';

const probe = probeOf('jpeg', 1000, 500);

function plan(operations: object, output?: unknown) {
  return planBody({ operations, ...(output !== undefined && { output }) }, probe);
}

const partOf = (planned: EditPlan) => planned.operations?.background as BackgroundPart | undefined;

describe('planning background removal', () => {
  it.each([
    [true, { subject: { category: 'general', largestOnly: false }, clipping: false }],
    [
      { category: 'cars', clipping: true },
      { subject: { category: 'cars', largestOnly: false }, clipping: true },
    ],
    [{ category: 'products' }, { subject: { category: 'products', largestOnly: false }, clipping: false }],
    [
      { selective: { object_to_keep: 'the red mug' }, clipping: true },
      { subject: { category: 'general', largestOnly: true }, clipping: true },
    ],
  ])('remove %j', (remove, expected) => {
    expect(partOf(plan({ background: { remove } }))?.remove).toEqual(expected);
  });

  it('keeps the alpha channel when the request asks for transparent and the format has one', () => {
    const result = plan({ background: { remove: true, color: 'transparent' } }, { format: { type: 'png' } });
    expect(result.flatten).toBeUndefined();
  });

  it('flattens an RGB input onto white by default, also when the format has alpha (the family’s rule)', () => {
    for (const type of ['png', 'webp', 'avif', 'tiff']) {
      expect(plan({ background: { remove: true } }, { format: { type } }).flatten, type).toEqual({
        r: 255,
        g: 255,
        b: 255,
        alpha: 1,
      });
    }
  });

  it('keeps an input with alpha of its own transparent by default', () => {
    const rgba = probeOf('png', 1000, 500, true);
    expect(planBody({ operations: { background: { remove: true } } }, rgba).flatten).toBeUndefined();
  });

  it('flattens onto white when the format has no alpha (the jpeg input kept as jpeg)', () => {
    expect(plan({ background: { remove: true } }).flatten).toEqual({ r: 255, g: 255, b: 255, alpha: 1 });
  });

  it('flattens onto the asked colour', () => {
    const result = plan({ background: { remove: true, color: '#102030' } }, { format: { type: 'webp' } });
    expect(result.flatten).toEqual({ r: 16, g: 32, b: 48, alpha: 1 });
  });

  it('transparent with jpeg stays a 422 at the colour', () => {
    let error: unknown;
    try {
      plan({ background: { remove: true, color: 'transparent' } });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ServiceException);
    expect((error as ServiceException).details).toHaveProperty(['operations.background.color']);
  });

  it('without removal an opaque input is not flattened', () => {
    expect(plan({ background: { color: '#102030' } }).flatten).toBeUndefined();
  });
});

describe('planning background blur', () => {
  it.each([
    [true, 'gaussian', BLUR_STRENGTH.regular.medium * 1000],
    [{ type: 'lens', level: 'high' }, 'lens', BLUR_STRENGTH.lens.high * 1000],
    [{ type: 'regular', level: 'low' }, 'gaussian', BLUR_STRENGTH.regular.low * 1000],
  ])('blur %j on a 1000 x 500 image', (blur, kind, radius) => {
    const result = plan({ background: { blur } });
    expect(partOf(result)?.blur).toEqual({ subject: { category: 'general', largestOnly: false }, kind, radius });
  });

  it('levels grow, and a level is relative to the image size', () => {
    for (const type of ['regular', 'lens'] as const) {
      const { low, medium, high } = BLUR_STRENGTH[type];
      expect(low).toBeLessThan(medium);
      expect(medium).toBeLessThan(high);
    }
  });

  it('selective blur keeps the most salient object', () => {
    const result = plan({ background: { blur: { selective: { object_to_keep: 'the dog' } } } });
    expect(partOf(result)?.blur?.subject).toEqual({ category: 'general', largestOnly: true });
  });

  it('with removal there is no background left to blur', () => {
    const result = plan({ background: { remove: true, blur: true } });
    expect(partOf(result)?.blur).toBeUndefined();
    expect(partOf(result)?.remove).toBeDefined();
  });
});

describe('operations.background, a registered operation', () => {
  it('runs after the restorations; flatten (the fill under what it cut away) and padding after it', () => {
    const names = pipelineSteps().map((step) => step.name);
    expect(names.slice(names.indexOf('restorations'), names.indexOf('padding') + 1)).toEqual([
      'restorations',
      'background',
      'flatten',
      'padding',
    ]);
  });

  it('needs the segmentation model for remove and for blur, each named in the 501', () => {
    const request = parseEditRequest(
      { input: 'https://example.com/a.jpg', operations: { background: { blur: true, color: '#fff' } } },
      { input: 'required' },
    );
    expect(modelOperations(request)).toEqual([{ path: 'operations.background.blur', needs: 'segmentation' }]);
    const colourOnly = parseEditRequest(
      { input: 'https://example.com/a.jpg', operations: { background: { color: '#fff' } } },
      { input: 'required' },
    );
    expect(modelOperations(colourOnly)).toEqual([]);
    expect(plan({ background: { color: '#fff' } }).operations?.background).toBeUndefined();
  });

  const MIB = 1024 * 1024;
  const JPEG_OUT: EditPlan = { encode: { format: 'jpeg', quality: 85, progressive: false }, colour: { space: 'auto' } };
  const removal: EditPlan = {
    ...JPEG_OUT,
    operations: { background: { remove: { subject: { category: 'general', largestOnly: false }, clipping: false } } },
  };

  it('counts four frames more and the matte’s planes (96 B a pixel at its working size)', () => {
    const square = { format: 'jpeg' as const, width: 1024, height: 1024, space: 'srgb' as const };
    expect(estimatePixelMemory(square, removal) / MIB).toBeCloseTo(16 + 16 + 96, 5);
  });

  it('estimates a 12 MP removal near what it was measured to take (918 MB with the model’s load)', () => {
    const bytes = estimatePixelMemory({ format: 'jpeg', width: 4000, height: 3000, space: 'srgb' }, removal);
    expect(bytes / 1e6).toBeGreaterThan(650);
    expect(bytes / 1e6).toBeLessThan(920);
  });
});
