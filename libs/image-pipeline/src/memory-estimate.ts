/**
 * How much memory an edit's pixel work takes, estimated from the image's header and the plan before anything
 * is decoded, so that the service can admit heavy images one after the other instead of all at once.
 *
 * The unit is a frame: the larger of the input and the output, as 8-bit RGBA (twice that for 16-bit input).
 * The factors come from measurements (peak RSS of one edit over the process's RSS before it, every input format
 * at 10, 25 and 49 MP: `npm run bench -- --suites=memory`, docs/benchmarks.md, "Memory of one edit per input
 * format"), the largest of the three sizes rounded up:
 *
 * - JPEG and PNG (decoded top to bottom while encoding) peak at up to 1.7 frames for a full-size re-encode
 *   (much less when a resize lets JPEG shrink on load): two frames; TIFF at 2.0: two and a half;
 * - WebP and GIF are decoded whole before the first pixel moves on: WebP 3.4 frames, GIF 2.9 (the palette
 *   image and its RGBA): four and three and a half;
 * - AVIF (libheif inside libvips) 4.8: five frames; HEIC, which this project's kernel decodes on a worker thread
 *   (libheif in WebAssembly: the input copied to the thread, the decoder's planes, RGBA handed to sharp), 5.1:
 *   six; BMP (a canonical copy of the input, the decoder's RGBA, the RGB handed to sharp) 6.9 with its input's
 *   bytes: seven;
 * - a plan that needs the whole image between stages (restorations, background, padding, a registered
 *   operation that says so, such as adjustments) adds two frames: the raw copy, the kernel's output and the next pipeline;
 * - a registered operation (operations/registered-steps.ts) adds what its own `memory` answers;
 * - WebP and AVIF encoders take the whole result: one more output frame;
 * - super-resolution (upscale, polish) holds the network's output, `scale` times the input per side (2, 3 or 4: the
 *   smallest that reaches the factor, SuperResolver), twice (the output and the pipeline's copy), as RGBA bytes;
 * - the background steps (removal, blur) hold four frames more (the image copied to the matte's and the
 *   decontamination's worker threads, the alpha, the RGBA result and its copy back) and the matte's float planes
 *   at its working size (at most 2048 px a side), about 96 bytes a pixel. Measured: one removal of a 12 MP JPEG
 *   raised the API's peak RSS by 918 MB, the segmentation model's first load included (about 200 MB); this
 *   estimates 686 MB.
 */
import type { EditPlan } from './edit-plan';
import type { ImageProbe } from './decode/probe';
import { PIPELINE_PHASES } from './operations/pipeline-step';
import { registeredParts } from './operations/registered-steps';

type EstimatedProbe = Pick<ImageProbe, 'format' | 'width' | 'height' | 'space'>;

/** Frames an edit holds at its peak by input format, for a plan that only resizes and encodes. */
const DECODE_FRAMES: Readonly<Record<ImageProbe['format'], number>> = {
  jpeg: 2,
  png: 2,
  tiff: 2.5,
  webp: 4,
  gif: 3.5,
  avif: 5,
  heic: 6,
  bmp: 7,
};
/** Extra frames of a plan that materialises the image between stages. */
const MATERIALISED_FRAMES = 2;
/**
 * Extra frames of outpaint: the scaled image, the canvas, its mask, the backend's copy and answer, the feather
 * overlay and the composite.
 */
const OUTPAINT_FRAMES = 6;
/**
 * Bytes per canvas pixel of the local backend's image completion (libs/generative, fill/image-completion.ts): four
 * float values per pixel, the match field and its maps, the pyramid above them (measured: about 62 more than the
 * frames above at 2 MP when the copied values had an array of their own; they are written in place now).
 */
const OUTPAINT_FILL_BYTES_PER_PIXEL = 80;
/**
 * A generator's answer (libs/generative) is decoded by the pipeline: it may have at most
 * {@link generatedAnswerPixels} pixels (checked in its header before decoding, generative.operation.ts), held once
 * as RGBA while it is fitted to the job's size, and its encoded bytes twice (the base64 text of a JSON answer and
 * the image it holds) up to GENERATIVE_MAX_RESPONSE_BYTES.
 */
const ANSWER_MIN_PIXELS = 2048 * 2048;

/**
 * Most pixels a generator may answer for a job of `jobPixels`: four times the job's (generators round sizes to their
 * own; OpenAI's are fixed), at least 2048x2048 (a small job may come back at the model's native size), and never
 * more than MAX_INPUT_PIXELS.
 */
export function generatedAnswerPixels(jobPixels: number, maxPixels = Number.POSITIVE_INFINITY): number {
  return Math.min(maxPixels, Math.max(4 * jobPixels, ANSWER_MIN_PIXELS));
}

/** What a generator's answer may take while it is read and decoded: its encoded bytes and its RGBA frame. */
export function generatedAnswerBytes(jobPixels: number, limits: GeneratorAnswerLimits): number {
  return 2 * limits.responseBytes + generatedAnswerPixels(jobPixels, limits.maxPixels) * 4;
}

/** The limits of a generator's answer: MAX_INPUT_PIXELS and GENERATIVE_MAX_RESPONSE_BYTES. */
export interface GeneratorAnswerLimits {
  maxPixels: number;
  responseBytes: number;
}

/** Extra output frames of encoders that take the whole result. */
const WHOLE_ENCODERS: ReadonlySet<EditPlan['encode']['format']> = new Set(['webp', 'avif']);

/**
 * Estimated peak memory of running `plan` on the probed image, in bytes (> 0). `answer`: the limits of a generator's
 * answer, counted for outpaint and style transfer (absent: none counted, for a backend that answers pixels).
 */
export function estimatePixelMemory(probe: EstimatedProbe, plan: EditPlan, answer?: GeneratorAnswerLimits): number {
  const depth = probe.space === 'rgb16' || probe.space === 'grey16' ? 2 : 1;
  const inputPixels = probe.width * probe.height;
  const parts = registeredParts(plan);
  const output = outputPixels(probe, plan, parts);
  const frame = Math.max(inputPixels, output) * 4 * depth;
  const frames = DECODE_FRAMES[probe.format] + (materialises(plan, parts) ? MATERIALISED_FRAMES : 0);
  const encoder = WHOLE_ENCODERS.has(plan.encode.format) ? output * 4 : 0;
  const upscaled = superResolved(inputPixels, output, plan);
  const superResolution = upscaled * 4 * 2;
  const generative = plan.outpaint
    ? OUTPAINT_FRAMES * output * 4 +
      (answer ? generatedAnswerBytes(output, answer) : output * OUTPAINT_FILL_BYTES_PER_PIXEL)
    : 0;
  const inputSize = { width: probe.width, height: probe.height };
  const sizes = { frame, upscaled, input: inputPixels, inputSize, output, depth, ...(answer && { answer }) };
  const registered = parts.reduce((sum, { step, part }) => sum + (step.memory?.(part, sizes) ?? 0), 0);
  return Math.ceil(frame * frames + encoder + superResolution + generative + registered);
}

/** Pixels of the super-resolution network's output for an upscale, at the scale its factor needs (polish: its registered step). */
function superResolved(input: number, output: number, plan: EditPlan): number {
  const resize = plan.resize;
  const upscale = resize && resize.mode !== 'canvas' && resize.upscale && output > input;
  const scale = upscale ? Math.min(4, Math.max(2, Math.ceil(Math.sqrt(output / input)))) : 0;
  return input * scale * scale;
}

/**
 * Whether the pipeline holds the whole image between stages (see ImagePipeline.process). The identity crop is not
 * among them: it is a lazy `extract` on the decode's pipeline, and it only removes rows. Its face search decodes
 * the input again, at the detector's size, before the edit and within the same admission (EditExecutor.edit
 * admits the uncut plan, whose estimate bounds both).
 */
function materialises(plan: EditPlan, parts: ReturnType<typeof registeredParts>): boolean {
  return Boolean(
    plan.flatten ||
    plan.outpaint ||
    parts.some(({ step, part }) =>
      typeof step.materialises === 'function' ? step.materialises(part) : step.materialises,
    ),
  );
}

/**
 * Pixels of the result: the resize's (or outpaint's) size, else the input's, each changed by the registered steps
 * that change sizes (a padding grows it) on their side of resizing.
 */
function outputPixels(probe: EstimatedProbe, plan: EditPlan, parts: ReturnType<typeof registeredParts>): number {
  const resizing = PIPELINE_PHASES.indexOf('resizing');
  const sized = plan.resize ?? plan.outpaint;
  let size = sized ? { width: sized.width, height: sized.height } : { width: probe.width, height: probe.height };
  for (const { step, part } of parts) {
    if (step.size && (!sized || PIPELINE_PHASES.indexOf(step.phase) >= resizing)) size = step.size(part, size);
  }
  return size.width * size.height;
}
