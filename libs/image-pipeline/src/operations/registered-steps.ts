import type { EditPlan } from '../edit-plan';
import type { GeneratorAnswerLimits } from '../memory-estimate';
import { PIPELINE_PHASES, type PipelinePhase, type PipelineStep, type StepContext } from './pipeline-step';
import type { StageImage } from './stage';

/**
 * The pipeline's side of a registered edit operation (libs/editing, operations/): its step, run when the plan
 * holds its part (`plan.operations[name]`), and what it costs. The planner, the memory estimate and the
 * processing order read these registrations; nothing lists a registered operation by hand.
 */
export interface RegisteredStep<Part = unknown> {
  /** The member of `operations` and of `plan.operations`. */
  readonly name: string;
  /** Runs after the built-in steps of this phase (pipeline-steps.ts) and the steps registered before it there. */
  readonly phase: PipelinePhase;
  /** See PipelineStep.assumes8BitSrgb. */
  readonly assumes8BitSrgb: boolean | ((part: Part) => boolean);
  /** It holds the whole image between stages (memory-estimate.ts: two frames more, counted once per plan). */
  readonly materialises: boolean | ((part: Part) => boolean);
  /** Bytes it holds beyond those frames (memory-estimate.ts). */
  memory?(part: Part, sizes: StepSizes): number;
  run(stage: StageImage, part: Part, context: StepContext): Promise<StageImage>;
  /** See PipelineStep.crops: its result may be smaller in a way the plan cannot know (a clip to the object). */
  readonly crops?: boolean;
  /** The size it leaves an image of `size` (padding grows it); absent: the same size. */
  size?(part: Part, size: { width: number; height: number }): { width: number; height: number };
}

/** What a step's memory is reckoned from. */
export interface StepSizes {
  /** The larger of input and output as RGBA at the input's bit depth, in bytes. */
  frame: number;
  /** Pixels of the super-resolution network's output for the resize's upscale (0 without one): held in another phase. */
  upscaled: number;
  /** The input's pixels and size, and the output's pixels. */
  input: number;
  inputSize: { width: number; height: number };
  output: number;
  /** Bytes per channel of the input (1, or 2 for 16-bit). */
  depth: number;
  /** The limits of a generator's answer, when the generator answers encoded images (memory-estimate.ts). */
  answer?: GeneratorAnswerLimits;
}

const registered = new Map<string, RegisteredStep>();

/** Registers the step of an operation; a second one of the same name is a programming error. */
export function registerStep<Part>(step: RegisteredStep<Part>): void {
  if (registered.has(step.name)) throw new Error(`an operation named ${step.name} is registered already`);
  if (!PIPELINE_PHASES.includes(step.phase) || step.phase === 'decode') {
    throw new Error(`${step.name}: phase ${step.phase} is not one an operation can run in`);
  }
  registered.set(step.name, step as RegisteredStep);
}

/** The registered steps, in the order they were registered. */
export function registeredSteps(): readonly RegisteredStep[] {
  return [...registered.values()];
}

/** The registered steps whose part the plan holds, each with its part. */
export function registeredParts(plan: EditPlan): Array<{ step: RegisteredStep; part: unknown }> {
  const parts = plan.operations ?? {};
  return Object.keys(parts).flatMap((name) => {
    const step = registered.get(name);
    return step && parts[name] !== undefined ? [{ step, part: parts[name] }] : [];
  });
}

/** A registered step as an entry of the pipeline: on when the plan holds its part. */
export function asPipelineStep<Part>(step: RegisteredStep<Part>): PipelineStep<Part> {
  return {
    name: step.name,
    phase: step.phase,
    assumes8BitSrgb: step.assumes8BitSrgb !== false,
    ...(step.crops && { crops: true }),
    ...(typeof step.assumes8BitSrgb === 'function' && { assumes8BitFor: step.assumes8BitSrgb }),
    partOf: (plan) => plan.operations?.[step.name] as Part | undefined,
    run: (stage, part, context) => step.run(stage, part, context),
  };
}
