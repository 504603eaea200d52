import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { probeImage } from './decode/probe';
import type { EditPlan } from './edit-plan';
import { decodeStep } from './operations/decode.operation';
import { PIPELINE_PHASES, type DecodeStep, type PipelineStep, type StepContext } from './operations/pipeline-step';
import { quadrants } from './operations/test-images';
import { registerStep } from './operations/registered-steps';
import { PIPELINE_STEPS, pipelineSteps, runSteps } from './pipeline-steps';

/**
 * The phases as docs/image-editing.md states the contract's order ("names them: decode -> ... -> encode."), so
 * that the one summary in prose cannot drift from the list.
 */
function documentedOrder(): string[] {
  const doc = readFileSync(resolve(__dirname, '../../../docs/image-editing.md'), 'utf8');
  const summary = /names them: ([^.]+)\./.exec(doc.replace(/\s+/g, ' '));
  return (summary?.[1] ?? '').split('->').map((phase) => phase.trim());
}

const BASE: EditPlan = { encode: { format: 'png', compression: 'fast' }, colour: { space: 'auto' } };
const WHITE = { r: 255, g: 255, b: 255, alpha: 1 };

/** For each built step, the plan with only its part on. */
const ONLY: Record<string, EditPlan> = {
  flatten: { ...BASE, flatten: WHITE },
  resize: { ...BASE, resize: { mode: 'scale', width: 10, height: 10 } },
};

const [, ...steps] = PIPELINE_STEPS;
const on = (plan: EditPlan) => steps.filter((step) => step.partOf(plan) !== undefined).map((step) => step.name);

async function sixteenBit(): Promise<{ bytes: Buffer; context: StepContext }> {
  const bytes = await sharp({ create: { width: 8, height: 6, channels: 3, background: '#808080' } })
    .toColourspace('rgb16')
    .png()
    .toBuffer();
  const probe = await probeImage(bytes);
  expect(probe.space).toBe('rgb16');
  const pool = { run: () => Promise.reject(new Error('no kernel runs here')) };
  const profiles = { path: () => Promise.reject(new Error('no profile is written here')) };
  return { bytes, context: { bytes, probe, plan: BASE, pool, profiles, maxPixels: 1_000_000 } };
}

describe('PIPELINE_STEPS', () => {
  it("is in the contract's order: every phase has a step, and no step is out of its phase's place", () => {
    const documented = documentedOrder();
    expect(documented).toHaveLength(10);
    expect(PIPELINE_PHASES).toEqual(documented);
    // these phases hold registered operations only (libs/editing, operations/): one stand-in each here
    for (const phase of ['privacy', 'restorations', 'background', 'adjustments', 'style transfer', 'overlay'] as const)
      registerStep({ name: phase, phase, assumes8BitSrgb: false, materialises: false, run: async (s) => s });
    const phases = pipelineSteps()
      .map((step) => step.phase)
      .filter((phase, i, all) => phase !== all[i - 1]);
    expect(phases).toEqual(documented);
  });

  it('names each step once, decode first and encode last', () => {
    const names = PIPELINE_STEPS.map((step) => step.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names[0]).toBe('decode');
    expect(names.at(-1)).toBe('encode');
  });

  it('runs only encode for a plan that asks for nothing', () => {
    expect(on(BASE)).toEqual(['encode']);
  });

  it.each(Object.entries(ONLY))('runs %s (and encode) when only its part of the plan is on', (name, plan) => {
    expect(on(plan)).toEqual([name, 'encode']);
  });

  it('runs the upscale model before the resize when the resize upscales (not for a canvas)', () => {
    const upscale = { mode: 'photo' } as const;
    expect(on({ ...BASE, resize: { mode: 'scale', width: 10, height: 10, upscale } })).toEqual([
      'upscale',
      'resize',
      'encode',
    ]);
    const crop = { mode: 'crop', width: 10, height: 10, position: 'center', upscale } as const;
    expect(on({ ...BASE, resize: crop })).toEqual(['upscale', 'resize', 'encode']);
    const fill = { r: 0, g: 0, b: 0, alpha: 1 };
    const canvas = { mode: 'canvas', width: 10, height: 10, inner: { width: 5, height: 5 }, fill } as const;
    expect(on({ ...BASE, resize: canvas })).toEqual(['resize', 'encode']);
  });

  it('runs every built step, in order, when every part is on', () => {
    const parts = Object.values(ONLY).reduce((plan, part) => ({ ...plan, ...part }), BASE);
    const all: EditPlan = { ...parts, resize: { mode: 'scale', width: 10, height: 10, upscale: { mode: 'faces' } } };
    expect(on(all)).toEqual(['flatten', 'upscale', 'resize', 'encode']);
  });
});

describe('runSteps', () => {
  /** A list of recording steps over `plan.dpi` (on when set), so that the runner is seen alone. */
  function recorded(eightBit: boolean[]) {
    const ran: string[] = [];
    const decode: DecodeStep = {
      name: 'decode',
      phase: 'decode',
      open: async (_context, toEightBit) => {
        ran.push(`decode${toEightBit ? ' to 8 bits' : ''}`);
        return quadrants(2, 2);
      },
    };
    const step = (name: string, assumes8BitSrgb: boolean, partOf: (plan: EditPlan) => unknown): PipelineStep => ({
      name,
      phase: 'adjustments',
      assumes8BitSrgb,
      partOf,
      run: async (stage, part) => {
        ran.push(`${name} ${String(part)}`);
        return stage;
      },
    });
    const list: [DecodeStep, ...PipelineStep[]] = [
      decode,
      step('first', eightBit[0], (plan) => plan.dpi),
      step('off', true, () => undefined),
      step('second', eightBit[1], (plan) => plan.dpi && plan.dpi * 2),
    ];
    return { ran, list };
  }

  it('runs the steps that are on, in order, each with its part', async () => {
    const { ran, list } = recorded([false, false]);
    const { context } = await sixteenBit();
    await runSteps({ ...context, plan: { ...BASE, dpi: 72 } }, list);
    expect(ran).toEqual(['decode', 'first 72', 'second 144']);
  });

  it('asks decode for 8 bits only when a step that runs assumes them', async () => {
    const { context } = await sixteenBit();
    for (const [eightBit, dpi, expected] of [
      [[false, true], 72, 'decode to 8 bits'],
      [[false, false], 72, 'decode'],
      [[true, true], undefined, 'decode'],
    ] as const) {
      const { ran, list } = recorded([...eightBit]);
      await runSteps({ ...context, plan: { ...BASE, dpi } }, list);
      expect(ran[0]).toBe(expected);
    }
  });

  it('keeps a 16-bit input in one pipeline for a resize, and converts it once for a step that assumes 8 bits', async () => {
    const { context } = await sixteenBit();
    const asked: boolean[] = [];
    const spy: DecodeStep = {
      ...decodeStep,
      open: (decodeContext, toEightBit) => {
        asked.push(toEightBit);
        return decodeStep.open(decodeContext, toEightBit);
      },
    };
    await runSteps({ ...context, plan: ONLY.resize }, [spy, ...steps]);
    await runSteps({ ...context, plan: { ...ONLY.resize, flatten: WHITE } }, [spy, ...steps]);
    expect(asked).toEqual([false, true]);
  });
});

describe('decodeStep', () => {
  it('opens a 16-bit input as one pipeline from its bytes, and gives 8-bit sRGB pixels when asked', async () => {
    const { context } = await sixteenBit();
    const kept = await (await decodeStep.open(context, false)).image.toBuffer({ resolveWithObject: true });
    expect(kept.info.format).toBe('png');
    const converted = await (await decodeStep.open(context, true)).image.toBuffer({ resolveWithObject: true });
    expect(converted.info).toMatchObject({ format: 'raw', width: 8, height: 6, channels: 3 });
    expect(converted.data.length).toBe(8 * 6 * 3);
  });
});
