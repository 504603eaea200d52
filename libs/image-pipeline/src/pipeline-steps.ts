import { decodeStep } from './operations/decode.operation';
import { encodeStep } from './operations/encode.operation';
import { flattenStep } from './operations/flatten.operation';
import { outpaintStep } from './operations/generative.operation';
import {
  assumes8Bit,
  PIPELINE_PHASES,
  type DecodeStep,
  type PipelineStep,
  type StepContext,
} from './operations/pipeline-step';
import { resizeStep } from './operations/resize.operation';
import { asPipelineStep, registeredSteps } from './operations/registered-steps';
import { upscaleStep } from './operations/upscale.operation';
import type { StageImage } from './operations/stage';

/**
 * THE processing order: docs/api-contract.md's "Image edit", "Processing order", which every other text that states it
 * refers to. Each entry runs only when its part of the plan is on; an operation is added as one entry of its
 * phase. sharp applies the operations of one pipeline in its own fixed order, not in call order, so steps
 * start a new pipeline where that order would differ from this one (operations/stage.ts); a plain resize and
 * encode stays one pipeline from the encoded input.
 */
export const PIPELINE_STEPS: readonly [DecodeStep, ...PipelineStep[]] = [
  decodeStep,
  flattenStep,
  // the upscale model enlarges by its scale where the size grows (ResizePlan.upscale); resize makes the exact size
  upscaleStep,
  resizeStep,
  outpaintStep,
  encodeStep,
];

/** pipelineSteps' answer, and how many registered steps it was made with (registrations only add). */
let merged: { registered: number; steps: readonly [DecodeStep, ...PipelineStep[]] } | undefined;

/**
 * The built-in steps with the registered operations' (operations/registered-steps.ts), each after the last step
 * of its phase: the order the pipeline runs. Made once per set of registrations, not per edit.
 */
export function pipelineSteps(): readonly [DecodeStep, ...PipelineStep[]] {
  const registered = registeredSteps();
  if (merged?.registered === registered.length) return merged.steps;
  const [decode, ...rest] = PIPELINE_STEPS;
  const steps: PipelineStep[] = [...rest];
  for (const step of registered) {
    const phase = PIPELINE_PHASES.indexOf(step.phase);
    let at = steps.length;
    while (at > 0 && PIPELINE_PHASES.indexOf(steps[at - 1].phase) > phase) at--;
    steps.splice(at, 0, asPipelineStep(step));
  }
  merged = { registered: registered.length, steps: [decode, ...steps] };
  return merged.steps;
}

/**
 * Runs every step whose part of `context.plan` is on, in order; the result is the pipeline to execute. Which
 * steps run is known before decoding, so a 16-bit input is converted to 8-bit sRGB once, and only when one
 * of them assumes it. After a step that crops, the later steps run on the plan made again for the new size.
 */
export async function runSteps(
  context: StepContext,
  steps: readonly [DecodeStep, ...PipelineStep[]] = pipelineSteps(),
): Promise<StageImage> {
  const [decode, ...rest] = steps;
  // which steps run does not depend on sizes, so a plan made again after a crop turns none on or off
  const toEightBit = rest.some((step) => {
    const part = step.partOf(context.plan);
    return part !== undefined && assumes8Bit(step, part);
  });
  let stage = await decode.open(context, toEightBit);
  let current = context;
  for (const step of rest) {
    const part = step.partOf(current.plan);
    if (part === undefined) continue;
    const before = { width: stage.width, height: stage.height };
    stage = await step.run(stage, part, current);
    if (step.crops && current.replan && (stage.width !== before.width || stage.height !== before.height)) {
      current = { ...current, plan: current.replan({ width: stage.width, height: stage.height }) };
    }
  }
  return stage;
}
