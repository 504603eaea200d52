import { describe, expect, it } from 'vitest';
import { estimatePixelMemory, pipelineSteps, type EditPlan } from '@app/image-pipeline';
import { ServiceException } from '@app/common';
import { OperationsDto } from '../../dto/operations.dto';
import { Issues } from '../../dto/dto-validation';
import { readOperations } from '../../dto/operations.resolver';
import '..';
import { paddingOperation } from './padding.operation';

const MIB = 1024 * 1024;
const WHITE = { r: 255, g: 255, b: 255, alpha: 1 };
const JPEG_OUT: EditPlan = { encode: { format: 'jpeg', quality: 85, progressive: false }, colour: { space: 'auto' } };
const context = (width: number, height: number, maxPixels = 100_000_000) => ({
  size: { width, height },
  format: 'jpeg' as const,
  fill: WHITE,
  maxPixels,
  path: 'operations.padding',
});

function problems(fn: () => unknown): Record<string, string[]> {
  try {
    fn();
  } catch (error) {
    if (error instanceof ServiceException) return error.details as Record<string, string[]>;
    throw error;
  }
  return {};
}

describe('operations.padding, a registered operation that changes the size', () => {
  it('is a string member of operations, documented, and runs after the background phase, before resizing', () => {
    const documented = Reflect.getMetadata('swagger/apiModelPropertiesArray', OperationsDto.prototype) as string[];
    expect(documented).toContain(':padding');
    const names = pipelineSteps().map((step) => step.name);
    expect(names.indexOf('padding')).toBe(names.indexOf('flatten') + 1);
    expect(names.indexOf('upscale')).toBe(names.indexOf('padding') + 1);
  });

  it("is checked by its property's rule with the rest of operations, and read into side lengths", () => {
    const issues = new Issues();
    const read = readOperations({ padding: '10% 5%' }, 'operations', issues);
    expect(issues.details).toEqual({});
    expect(read.registered?.padding).toEqual({ unit: 'percent', top: 5, right: 10, bottom: 5, left: 10 });
    const bad = new Issues();
    expect(readOperations({ padding: '10px 5%' }, 'operations', bad).registered).toBeUndefined();
    expect(Object.keys(bad.details)).toEqual(['operations.padding']);
  });

  it.each([
    ['10%', 1000, 800, { top: 80, right: 100, bottom: 80, left: 100 }, { width: 1200, height: 960 }],
    // the first value is horizontal, the second vertical
    ['10px 20px', 300, 200, { top: 20, right: 10, bottom: 20, left: 10 }, { width: 320, height: 240 }],
    ['1px 2px 3px 4px', 10, 10, { top: 1, right: 2, bottom: 3, left: 4 }, { width: 16, height: 14 }],
  ])('%s of %ix%i: %j, leaving %j', (padding, width, height, sides, after) => {
    const value = paddingOperation.read(padding, 'operations.padding', new Issues())!;
    const part = paddingOperation.plan(value, context(width, height))!;
    expect(part).toEqual({ sides, fill: WHITE });
    expect(paddingOperation.step.size!(part, { width, height })).toEqual(after);
  });

  it('refuses (422) a side over half the image and a padded image over the pixel limit', () => {
    const half = paddingOperation.read('150px', 'operations.padding', new Issues())!;
    expect(Object.keys(problems(() => paddingOperation.plan(half, context(200, 400))))).toEqual(['operations.padding']);
    const ten = paddingOperation.read('10%', 'operations.padding', new Issues())!;
    expect(problems(() => paddingOperation.plan(ten, context(1000, 1000, 1_000_000)))['operations.padding']).toEqual([
      'the padded image would be 1200x1200 (1.44 MP), more than 1.00 MP',
    ]);
  });

  it('enlarges the result the memory estimate counts: two materialised frames of the padded image', () => {
    const probe = { format: 'jpeg' as const, width: 1024, height: 1024, space: 'srgb' as const };
    const padded: EditPlan = {
      ...JPEG_OUT,
      operations: { padding: { sides: { top: 512, right: 0, bottom: 512, left: 0 }, fill: WHITE } },
    };
    expect(estimatePixelMemory(probe, padded) / MIB).toBeCloseTo(32, 5);
  });
});
