import { describe, expect, it } from 'vitest';
import { estimatePixelMemory, pipelineSteps, type EditPlan } from '@app/image-pipeline';
import { Issues } from '../../dto/dto-validation';
import { readOperations } from '../../dto/operations.resolver';
import type { EditRequest } from '../../edit-request.model';
import { modelOperations } from '../../model-capabilities';
import '..';
import { generativeOperation, type Generative } from './generative.operation';

const MIB = 1024 * 1024;
const PLAIN: EditPlan = { encode: { format: 'jpeg', quality: 80, progressive: false }, colour: { space: 'auto' } };
const PROBE = {
  format: 'png' as const,
  fill: { r: 255, g: 255, b: 255, alpha: 1 },
  maxPixels: 100_000_000,
  width: 1000,
  height: 1000,
  space: 'srgb' as const,
};

function read(operations: Record<string, unknown>) {
  const issues = new Issues();
  const value = readOperations(operations, 'operations', issues);
  return { value, issues: issues.details };
}

const request = (generative: Generative): EditRequest => ({
  input: 'https://example.com/a.png',
  operations: { registered: { generative } },
  output: {},
});

describe('operations.generative (style transfer), a registered operation', () => {
  it('runs after the adjustments and before the watermark and the encoder', () => {
    const names = pipelineSteps().map((step) => step.name);
    expect(names.slice(names.indexOf('adjustments'))).toEqual(['adjustments', 'generative', 'watermark', 'encode']);
  });

  it('cannot follow a background removal or blur, reported even beside the members own problems', () => {
    for (const background of [{ remove: true }, { blur: { type: 'regular' } }]) {
      const { issues } = read({ background, generative: { style_transfer: { prompt: 'oil', style_strength: 2 } } });
      expect(issues['operations.generative.style_transfer']).toEqual([
        'style_transfer cannot be combined with background remove or blur',
      ]);
      expect(Object.keys(issues)).toContain('operations.generative.style_transfer.style_strength');
    }
    expect(read({ background: { remove: false }, generative: { style_transfer: { prompt: 'oil' } } }).issues).toEqual(
      {},
    );
  });

  it('needs the generator only when it restyles, and names the member in the 501', () => {
    const style = { prompt: 'oil', style_strength: 0.5, denoising_strength: 0.5, depth_strength: 1 };
    expect(modelOperations(request({ style_transfer: style }))).toEqual([
      { path: 'operations.generative.style_transfer', needs: 'generative' },
    ]);
    expect(modelOperations(request({}))).toEqual([]);
  });

  it('reads its reference image as an asset and plans nothing for an empty group', () => {
    const style = { style_reference_image: 'storage://styles/oil.jpg', style_strength: 1, denoising_strength: 0 };
    const value = generativeOperation.read({ style_transfer: style }, 'operations.generative', new Issues())!;
    expect(generativeOperation.asset!(value)).toEqual({
      field: 'operations.generative.style_transfer.style_reference_image',
      location: 'storage://styles/oil.jpg',
    });
    const context = {
      size: { width: 10, height: 10 },
      format: 'png' as const,
      fill: { r: 255, g: 255, b: 255, alpha: 1 },
      maxPixels: 100_000_000,
      path: 'operations.generative',
    };
    expect(generativeOperation.plan(value, context)).toEqual({
      reference: true,
      styleStrength: 1,
      denoisingStrength: 0,
      depthStrength: 1,
    });
    expect(generativeOperation.plan({}, context)).toBeUndefined();
  });

  it("costs three frames, and an HTTP generator's answer its bytes twice and its pixels as RGBA", () => {
    const styled: EditPlan = {
      ...PLAIN,
      operations: {
        generative: { reference: false, styleStrength: 0.5, denoisingStrength: 0.5, depthStrength: 0.5 },
      },
    };
    const frame = 1000 * 1000 * 4;
    // the materialised frames (two) and the step's own three
    expect(estimatePixelMemory(PROBE, styled) - estimatePixelMemory(PROBE, PLAIN)).toBe(5 * frame);
    const answer = { maxPixels: 50_000_000, responseBytes: 8 * MIB };
    // 1 MP job: the answer may have 2048 x 2048 pixels (16 MiB as RGBA) and 8 MiB of bytes, held twice
    const local = estimatePixelMemory(PROBE, styled);
    expect((estimatePixelMemory(PROBE, styled, answer) - local) / MIB).toBeCloseTo(16 + 16, 5);
  });
});
