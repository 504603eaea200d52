import { generatedAnswerBytes, styleTransfer, type StyleTransferPlan } from '@app/image-pipeline';
import { absent, compact, isPlainObject, memberOf, pathOf, type Issues } from '../../dto/dto-validation';
import type { EditOperation } from '../edit-operation';
import { GenerativeDto, type StyleTransferDto } from './generative.dto';

/** At least one of the reference image and the prompt; strengths 0..1. */
export interface StyleTransfer {
  style_reference_image?: string;
  prompt?: string;
  style_strength: number;
  denoising_strength: number;
  depth_strength: number;
}

export interface Generative {
  style_transfer?: StyleTransfer;
}

const DEFAULT_STYLE = { style_strength: 0.75, denoising_strength: 0.75, depth_strength: 1 } as const;
const FIELD = 'operations.generative';
/** Frames style transfer holds besides the pipeline's: the image, the backend's copy and its answer. */
const STYLE_FRAMES = 3;

function readStyleTransfer(dto: StyleTransferDto, path: string, issues: Issues): StyleTransfer {
  if (absent(dto.style_reference_image) && absent(dto.prompt)) {
    issues.add(path, 'style_transfer needs style_reference_image, prompt, or both');
  }
  return compact({
    style_reference_image: dto.style_reference_image ?? undefined,
    prompt: dto.prompt ?? undefined,
    style_strength: dto.style_strength ?? DEFAULT_STYLE.style_strength,
    denoising_strength: dto.denoising_strength ?? DEFAULT_STYLE.denoising_strength,
    depth_strength: dto.depth_strength ?? DEFAULT_STYLE.depth_strength,
  });
}

function read(value: object, path: string, issues: Issues): Generative | undefined {
  const style = (value as GenerativeDto).style_transfer;
  const styleTransfer = isPlainObject(style)
    ? readStyleTransfer(style, pathOf(path, 'style_transfer'), issues)
    : undefined;
  return issues.has(path) ? undefined : compact({ style_transfer: styleTransfer });
}

/**
 * `style_transfer` restyles the whole image, so it cannot follow a background removal or blur. Read from the raw
 * members, so that the conflict is reported even when one of them has problems of its own.
 */
function check(operations: Readonly<Record<string, unknown>>, issues: Issues): void {
  const on = (value: unknown) => !absent(value) && value !== false;
  const { generative, background } = operations;
  if (on(memberOf(generative, 'style_transfer'))) {
    if (on(memberOf(background, 'remove')) || on(memberOf(background, 'blur'))) {
      issues.add(`${FIELD}.style_transfer`, 'style_transfer cannot be combined with background remove or blur');
    }
  }
}

/**
 * `operations.generative`: `style_transfer`, the image restyled by the generator (the GenerativeBackend port of
 * libs/image-pipeline; its kernel, generative.operation.ts there) towards a reference image, a prompt or both,
 * after the adjustments and before any mark over the final pixels; the product keeps its colours.
 */
export const generativeOperation: EditOperation<Generative, StyleTransferPlan> = {
  name: 'generative',
  dto: GenerativeDto,
  description: 'Generative edits: `style_transfer`.',
  read,
  check,
  asset: ({ style_transfer: style }) =>
    style?.style_reference_image === undefined
      ? undefined
      : { field: `${FIELD}.style_transfer.style_reference_image`, location: style.style_reference_image },
  plan: ({ style_transfer: style }) =>
    style && {
      ...(style.prompt !== undefined && { prompt: style.prompt }),
      reference: style.style_reference_image !== undefined,
      styleStrength: style.style_strength,
      denoisingStrength: style.denoising_strength,
      depthStrength: style.depth_strength,
    },
  step: {
    phase: 'style transfer',
    assumes8BitSrgb: true,
    materialises: true,
    memory: (_part, { frame, depth, answer }) =>
      STYLE_FRAMES * frame + (answer ? generatedAnswerBytes(frame / 4 / depth, answer) : 0),
    run: (stage, part, context) => styleTransfer(stage, part, context, context.assets?.operations?.generative),
  },
  needs: [{ capability: 'generative', at: 'style_transfer', when: (value) => value.style_transfer !== undefined }],
};
