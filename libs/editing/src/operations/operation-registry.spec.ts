import { describe, expect, it } from 'vitest';
import { estimatePixelMemory, pipelineSteps, type EditPlan } from '@app/image-pipeline';
import { OperationsDto } from '../dto/operations.dto';
import { modelOperations } from '../model-capabilities';
import type { EditOperation } from './edit-operation';
import { editOperations, registerEditOperation } from './operation-registry';

/** A registered operation as a test needs one: a plain class, a step that returns its stage. */
function operation(name: string, overrides: Partial<EditOperation> = {}): EditOperation {
  class Dto {}
  return {
    name,
    dto: Dto,
    description: name,
    read: () => ({}),
    plan: () => ({}),
    step: { phase: 'overlay', assumes8BitSrgb: false, materialises: false, run: async (stage) => stage },
    ...overrides,
  };
}

describe('the operation registry', () => {
  it('documents a registered member on OperationsDto and runs its step after its phase, before encoding', () => {
    registerEditOperation(operation('test_mark'));
    const documented = Reflect.getMetadata('swagger/apiModelPropertiesArray', OperationsDto.prototype) as string[];
    expect(documented).toContain(':test_mark');
    expect(editOperations().map((o) => o.name)).toContain('test_mark');
    const names = pipelineSteps().map((step) => step.name);
    expect(names.slice(-2)).toEqual(['test_mark', 'encode']);
  });

  it('refuses a member that is taken and the encode phase', () => {
    expect(() => registerEditOperation(operation('test_mark'))).toThrow(/taken/);
    expect(() => registerEditOperation(operation('padding'))).toThrow(/taken/);
    const encoding = operation('encoding', { step: { ...operation('x').step, phase: 'encode' } });
    expect(() => registerEditOperation(encoding)).toThrow(/no operation runs in encode/);
  });

  it("counts a registered operation's memory and the model it needs (501), and nothing when it is not asked", () => {
    registerEditOperation(
      operation('needs_model', {
        needs: [{ capability: 'segmentation' }],
        read: () => ({ on: true }),
        step: { ...operation('x').step, materialises: true, memory: (_part, { output }) => output * 10 },
      }),
    );
    const probe = { format: 'jpeg' as const, width: 1000, height: 1000, space: 'srgb' as const };
    const plain: EditPlan = { encode: { format: 'jpeg', quality: 80, progressive: false }, colour: { space: 'auto' } };
    const asked: EditPlan = { ...plain, operations: { needs_model: {} } };
    // two materialised frames of 4 MB and 10 bytes a pixel
    expect(estimatePixelMemory(probe, asked) - estimatePixelMemory(probe, plain)).toBe(2 * 4_000_000 + 10_000_000);
    const request = { operations: { registered: { needs_model: { on: true } } }, output: {} };
    expect(modelOperations(request)).toEqual([{ path: 'operations.needs_model', needs: 'segmentation' }]);
    expect(modelOperations({ operations: {}, output: {} })).toEqual([]);
  });
});
