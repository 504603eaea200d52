import { describe, expect, it } from 'vitest';
import { ServiceException } from '@app/common';
import type { ImageProbe } from '@app/image-pipeline';
import { BLUR_STRENGTH } from './background-plan';
import { parseEditRequest } from './edit-request';
import { planEdit } from './edit-planner';
import { ModelCapabilities } from './model-capabilities';

/** Every kind of model installed: these specs plan, nothing runs a model. */
class AllInstalled extends ModelCapabilities {
  available(): boolean {
    return true;
  }
}

const probe: ImageProbe = {
  format: 'jpeg',
  width: 1000,
  height: 500,
  orientation: 1,
  displayWidth: 1000,
  displayHeight: 500,
  channels: 3,
  hasAlpha: false,
  space: 'srgb',
};

function plan(operations: unknown, output?: unknown) {
  const request = parseEditRequest(
    { input: 'https://example.com/a.jpg', operations, ...(output !== undefined && { output }) },
    { input: 'required' },
  );
  return planEdit(request, probe, { maxPixels: 50_000_000, capabilities: new AllInstalled() });
}

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
    expect(plan({ background: { remove } }).removeBackground).toEqual(expected);
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
    const request = parseEditRequest(
      { input: 'https://example.com/a.png', operations: { background: { remove: true } } },
      { input: 'required' },
    );
    const rgba = { ...probe, format: 'png' as const, channels: 4, hasAlpha: true };
    expect(
      planEdit(request, rgba, { maxPixels: 50_000_000, capabilities: new AllInstalled() }).flatten,
    ).toBeUndefined();
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
    expect(result.blurBackground).toEqual({ subject: { category: 'general', largestOnly: false }, kind, radius });
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
    expect(result.blurBackground?.subject).toEqual({ category: 'general', largestOnly: true });
  });

  it('with removal there is no background left to blur', () => {
    const result = plan({ background: { remove: true, blur: true } });
    expect(result.blurBackground).toBeUndefined();
    expect(result.removeBackground).toBeDefined();
  });
});
