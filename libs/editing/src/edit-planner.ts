import { isOutputMediaType, MEDIA_TYPES, outputCapabilities, ServiceException } from '@app/common';
import {
  PIPELINE_PHASES,
  type ColourPlan,
  type DetectedFace,
  type EditPlan,
  type EncodePlan,
  type ImageProbe,
  type OutpaintPlan,
  type OutputFormat,
  type PipelinePhase,
  type Rgba,
} from '@app/image-pipeline';
import { DEFAULT_CROP } from './dto/resizing.dto';
import type { EditRequest, FormatOptions } from './edit-request.model';
import { assertModelsInstalled, type ModelCapabilities } from './model-capabilities';
import { askedOperations, type OperationPlanContext } from './operations';
import { backgroundOf } from './operations/background/background.operation';
import { upscaleOf } from './operations/restorations/restorations.operation';
import { cmykProblem, DEFAULT_FIT, defaultQuality, formatOptions, transparencyProblem } from './edit-rules';
import { checkSize, resolveSides, tooManyPixels } from './plan-sizes';
import { coverSize, planResize, targetSize, type Dimensions, type ResizeRequest } from './resize-geometry';

/** Target limit of outpaint, which redraws the image (contract "Limits"; polish's: operations/restorations/). */
export const OUTPAINT_MAX_PIXELS = 16_777_216;

const WHITE: Rgba = { r: 255, g: 255, b: 255, alpha: 1 };
const TRANSPARENT: Rgba = { r: 0, g: 0, b: 0, alpha: 0 };

export interface PlanContext {
  /** Largest result, in pixels (the input limit applies to what an edit produces too). */
  maxPixels: number;
  /** The format a file destination's extension names, used when the request names none. */
  destinationFormat?: OutputFormat;
  /** The models this process can run: an operation whose model is absent is refused (501) once all else passed. */
  capabilities: ModelCapabilities;
  /**
   * The faces found in the input (display pixels), once looked for: identity_crop is planned from them and every
   * later step sized from the cropped image. Absent: planned as if uncut (the checks made before detection).
   */
  faces?: readonly DetectedFace[];
}

/**
 * The output format: the request's, else the destination file's extension, else the input's own format where
 * it can be written (GIF and BMP become PNG, HEIC becomes JPEG).
 */
function outputFormat(request: EditRequest, probe: ImageProbe, context: PlanContext): OutputFormat {
  const asked = request.output.format?.type ?? context.destinationFormat;
  if (asked) return asked;
  const format = probe.format;
  return isOutputMediaType(format) ? format : (MEDIA_TYPES[format].writtenAs ?? 'png');
}

/** The encoder's settings for the request's format options, or the defaults of the format the service picked. */
export function encodePlan(format: OutputFormat, asked: FormatOptions | undefined): EncodePlan {
  const options = asked?.type === format ? asked : formatOptions(format);
  switch (options.type) {
    case 'jpeg':
      return { format: 'jpeg', quality: options.quality, progressive: options.progressive };
    case 'png':
      return { format: 'png', compression: options.compression };
    case 'webp':
    case 'avif':
      // a lossless encoder reads no quality; the plan's type carries one all the same
      return options.lossless
        ? { format: options.type, lossless: true, quality: defaultQuality(options.type) }
        : { format: options.type, lossless: false, quality: options.quality };
    case 'tiff':
      return options.compression === 'jpeg'
        ? { format: 'tiff', compression: 'jpeg', quality: options.quality }
        : { format: 'tiff', compression: 'lzw', quality: defaultQuality('tiff') };
  }
}

/**
 * The background: the asked colour; else transparent where the input has alpha of its own and the format keeps
 * it; else white. A removed background follows the same rule (the family's): an RGB photo gets white unless the
 * request says `transparent`.
 */
function backgroundColour(request: EditRequest, inputHasAlpha: boolean, format: OutputFormat): Rgba {
  const colour = backgroundOf(request.operations)?.color;
  if (colour?.kind === 'transparent') {
    const problem = transparencyProblem(format, request.output.format !== undefined);
    if (problem) throw ServiceException.validation({ 'operations.background.color': [problem] });
    return TRANSPARENT;
  }
  if (colour) return { r: colour.r, g: colour.g, b: colour.b, alpha: 1 };
  return inputHasAlpha && outputCapabilities(format).alpha ? TRANSPARENT : WHITE;
}

function colourPlan(request: EditRequest, format: OutputFormat): ColourPlan {
  const space = request.output.metadata?.color_space;
  if (space?.type === 'RGB') return { space: 'rgb' };
  if (space?.type !== 'CMYK') return { space: 'auto' };
  const problem = cmykProblem(format, request.output.format !== undefined);
  if (problem) throw ServiceException.validation({ 'output.metadata.color_space': [problem] });
  return { space: 'cmyk', profile: space.color_profile };
}

/** The resize request of the contract's `resizing` group (absent: no resize, unless upscale asks for 2x). */
function resizeRequest(request: EditRequest): ResizeRequest {
  const resizing = request.operations.resizing;
  const fit = resizing?.fit ?? DEFAULT_FIT;
  return {
    width: resizing?.width,
    height: resizing?.height,
    fit: fit.type,
    // read only by the crop fit
    crop: fit.type === 'crop' ? fit.crop : DEFAULT_CROP,
  };
}

/** Feathering when the request gives none: a narrow band, enough to hide the seam (percent of the side). */
export const DEFAULT_FEATHERING = 3;

/**
 * `fit: outpaint` (contract rule 6 and `outpaint_by`): the image grown by `outpaint_by` on each side (a 1000x1000
 * image with `10% 5%` becomes 1200x1100); then, where width and height ask for a size, that grown image fitted
 * inside it, the rest generated too. Both absent or `auto`: the grown size itself. The target stays within
 * 16.78 MP (422).
 */
function planOutpaint(request: EditRequest, size: Dimensions): OutpaintPlan | undefined {
  const fit = request.operations.resizing?.fit;
  if (fit?.type !== 'outpaint') return undefined;
  const grow = fit.outpaint_by
    ? resolveSides(fit.outpaint_by, size.width, size.height, 'operations.resizing.fit.outpaint_by')
    : { top: 0, right: 0, bottom: 0, left: 0 };
  const extended = { width: size.width + grow.left + grow.right, height: size.height + grow.top + grow.bottom };
  // rule 6: the generated background fills the whole width x height
  const canvas = targetSize({ ...resizeRequest(request), fit: 'canvas' }, extended)?.box ?? extended;
  if (canvas.width * canvas.height > OUTPAINT_MAX_PIXELS) {
    throw tooManyPixels('operations.resizing', canvas, OUTPAINT_MAX_PIXELS, 'the outpaint target');
  }
  const scale = Math.min(canvas.width / extended.width, canvas.height / extended.height);
  const offsetX = (canvas.width - extended.width * scale) / 2;
  const offsetY = (canvas.height - extended.height * scale) / 2;
  const left = Math.round(offsetX + grow.left * scale);
  const top = Math.round(offsetY + grow.top * scale);
  const inner = {
    left,
    top,
    width: Math.max(1, Math.min(canvas.width - left, Math.round(size.width * scale))),
    height: Math.max(1, Math.min(canvas.height - top, Math.round(size.height * scale))),
  };
  const feathering = fit.feathering ?? DEFAULT_FEATHERING;
  return {
    width: canvas.width,
    height: canvas.height,
    inner,
    feather: {
      x: Math.round((feathering * inner.width) / 100),
      y: Math.round((feathering * inner.height) / 100),
    },
  };
}

/**
 * Resolves a validated request against the input's header (and, for identity_crop, the faces found) into the
 * pipeline's {@link EditPlan}: the identity crop first, then every size from the cropped image; percentages
 * become pixels, defaults are filled, and what needs the image size is checked (422): padding and
 * outpaint_by at most half a side, the result within the pixel limit, polish within 16 MP, outpaint within
 * 16.78 MP, CMYK and transparency against the chosen format. Then 501 for operations whose model is not
 * installed ({@link assertModelsInstalled}): a client gets its 422s first.
 */
export function planEdit(request: EditRequest, probe: ImageProbe, context: PlanContext): EditPlan {
  const format = outputFormat(request, probe, context);
  const hasAlpha = probe.hasAlpha || backgroundOf(request.operations)?.remove !== undefined;
  const fill = backgroundColour(request, probe.hasAlpha, format);
  const colour = colourPlan(request, format);
  let size: Dimensions = { width: probe.displayWidth, height: probe.displayHeight };
  const plan: EditPlan = { encode: encodePlan(format, request.output.format), colour };
  const registered = registeredPlanner(request, { format, fill, maxPixels: context.maxPixels, faces: context.faces });
  size = registered.through('privacy', size);
  size = registered.through('restorations', size);
  size = registered.through('background', size);
  if (hasAlpha && fill.alpha === 1) plan.flatten = fill;
  size = registered.through('padding', size);
  const outpaint = planOutpaint(request, size);
  if (outpaint) {
    plan.outpaint = outpaint;
    size = { width: outpaint.width, height: outpaint.height };
    checkSize('operations.resizing', size, context.maxPixels, 'the result');
  }
  const upscaleModel = upscaleOf(request.operations);
  const upscale = upscaleModel ? { mode: upscaleModel } : undefined;
  const resize = outpaint ? undefined : planResize(resizeRequest(request), size, { upscale, fill });
  if (resize) {
    // a smart crop scores the whole image scaled to cover the box before it cuts (libvips computes a centre
    // crop lazily): that size is held in memory too
    if (resize.mode === 'crop' && resize.position === 'smart') {
      checkSize('operations.resizing', coverSize(size, resize), context.maxPixels, 'the image scaled to cover the box');
    }
    plan.resize = resize;
    size = { width: resize.width, height: resize.height };
    checkSize('operations.resizing', size, context.maxPixels, 'the result');
  }
  size = registered.through('overlay', size);
  const { maxSide } = outputCapabilities(format);
  if (Math.max(size.width, size.height) > maxSide) {
    throw ServiceException.validation({
      [resize || outpaint ? 'operations.resizing' : 'output.format']: [
        `the result would be ${size.width}x${size.height}; ${format} holds at most ${maxSide} pixels per side`,
      ],
    });
  }
  registered.checkFinal(size);
  const dpi = request.output.metadata?.dpi;
  if (dpi !== undefined) plan.dpi = dpi;
  if (registered.parts) plan.operations = registered.parts;
  assertModelsInstalled(request, context.capabilities);
  return plan;
}

/**
 * Plans the registered operations the request names (operations/) in the processing order, phase by phase as
 * planEdit reaches the end of each: `through(phase, size)` plans those of the phases up to `phase` not planned yet,
 * each for the size the steps before it leave, and answers the size they leave (a registered padding grows it).
 */
function registeredPlanner(
  request: EditRequest,
  context: Pick<OperationPlanContext, 'format' | 'fill' | 'maxPixels' | 'faces'>,
): {
  through(phase: PipelinePhase, size: Dimensions): Dimensions;
  checkFinal(size: Dimensions): void;
  readonly parts?: Record<string, unknown>;
} {
  const phaseOf = (name: PipelinePhase) => PIPELINE_PHASES.indexOf(name);
  // in the processing order already (the registry keeps its list so)
  const asked = askedOperations(request.operations.registered);
  const waiting = [...asked];
  let parts: Record<string, unknown> | undefined;
  return {
    checkFinal(size) {
      for (const { operation, value } of asked) operation.checkFinal?.(value, size);
    },
    through(phase, size) {
      while (waiting.length > 0 && phaseOf(waiting[0].operation.step.phase) <= phaseOf(phase)) {
        const { operation, value, path } = waiting.shift()!;
        const part = operation.plan(value, { ...context, size, path });
        if (part === undefined) continue;
        (parts ??= {})[operation.name] = part;
        size = operation.step.size?.(part, size) ?? size;
      }
      return size;
    },
    get parts() {
      return parts;
    },
  };
}
