import { decompressAsAsked, polish } from '@app/image-pipeline';
import type { Issues } from '../../dto/dto-validation';
import type { EditOperations } from '../../edit-request.model';
import { tooManyPixels } from '../../plan-sizes';
import type { EditOperation } from '../edit-operation';
import { RestorationsDto, type DecompressStrength, type UpscaleModel } from './restorations.dto';

export interface Restorations {
  upscale?: UpscaleModel;
  decompress?: DecompressStrength;
  polish: boolean;
}

/** The part of the plan: artefacts removed (`auto`: at the strength the bytes call for), detail redrawn. */
export interface RestorationsPart {
  decompress?: DecompressStrength;
  polish: boolean;
}

/** Target limit of polish, which redraws the image (contract "Limits"). */
export const POLISH_MAX_PIXELS = 16_000_000;
const FIELD = 'operations.restorations';

function read(value: object, path: string, issues: Issues): Restorations | undefined {
  const dto = value as RestorationsDto;
  if (issues.has(path)) return undefined;
  return {
    ...(dto.upscale != null && { upscale: dto.upscale }),
    ...(dto.decompress != null && { decompress: dto.decompress }),
    polish: dto.polish ?? false,
  };
}

/**
 * The upscale model the request asks for: read by the resize (ResizePlan.upscale), which enlarges with it where the
 * size grows, and without a size enlarges 2x (resize-geometry.ts). It runs in the resizing phase, as the resize.
 */
export function upscaleOf(operations: EditOperations): UpscaleModel | undefined {
  return (operations.registered?.restorations as Restorations | undefined)?.upscale;
}

/**
 * `operations.restorations`, after privacy and before the background: `decompress` (JPEG deblocking on a worker
 * thread) then `polish` (super-resolved 2x and scaled back, within 16 MP of the final size: 422). Its `upscale`
 * is the resize's model (upscaleOf), run in the resizing phase with it.
 */
export const restorationsOperation: EditOperation<Restorations, RestorationsPart> = {
  name: 'restorations',
  dto: RestorationsDto,
  description: 'Restorations: `decompress` and `polish` here, and the `upscale` model the resize enlarges with.',
  read,
  plan: ({ decompress, polish }) => (decompress || polish ? { ...(decompress && { decompress }), polish } : undefined),
  checkFinal: ({ polish }, size) => {
    if (polish && size.width * size.height > POLISH_MAX_PIXELS) {
      throw tooManyPixels(`${FIELD}.polish`, size, POLISH_MAX_PIXELS, 'the polish target');
    }
  },
  step: {
    phase: 'restorations',
    assumes8BitSrgb: true,
    materialises: true,
    // polish: the network's output at 2x (four times the input's pixels) as RGBA, and its copy; an upscale's
    // network runs in the resizing phase, after polish has let go of its own, so only the larger one counts
    memory: (part, { input, upscaled }) => (part.polish ? Math.max(0, input * 4 - upscaled) * 4 * 2 : 0),
    async run(stage, part, context) {
      const restored = part.decompress ? await decompressAsAsked(stage, part.decompress, context) : stage;
      return part.polish ? polish(restored, context) : restored;
    },
  },
  // every upscale model runs the super-resolution network (smart_resize too: on text it beats interpolation by
  // 1.4-3.8 dB PSNR, docs/benchmarks.md); polish redraws detail at the same size with it
  needs: [
    {
      capability: 'super-resolution',
      at: 'upscale',
      when: (value) => value.upscale !== undefined,
      asked: (value) => value.upscale,
    },
    { capability: 'super-resolution', at: 'polish', when: (value) => value.polish },
  ],
};
