import { adjust, type AdjustPlan } from '@app/image-pipeline';
import { absent, compact, isPlainObject, pathOf, validateShape, type Issues } from '../../dto/dto-validation';
import type { EditOperation } from '../edit-operation';
import { AdjustmentsDto, HdrDto } from './adjustments.dto';

/** Intensity 0..100. */
export interface Hdr {
  intensity: number;
  stitching: boolean;
}

/** Exposure, saturation and contrast -100..100; sharpness 0..100; absent is no change. */
export interface Adjustments {
  hdr?: Hdr;
  exposure?: number;
  saturation?: number;
  contrast?: number;
  sharpness?: number;
}

const DEFAULT_HDR: Hdr = { intensity: 100, stitching: false };

/** `hdr`: an intensity 0..100, or `{intensity (default 100), stitching (default false)}`. */
function readHdr(raw: unknown, path: string, issues: Issues): Hdr | undefined {
  if (isPlainObject(raw)) {
    const dto = validateShape(HdrDto, raw, path, issues);
    if (!dto || issues.has(path)) return undefined;
    return { intensity: dto.intensity ?? DEFAULT_HDR.intensity, stitching: dto.stitching ?? DEFAULT_HDR.stitching };
  }
  if (typeof raw === 'number' && Number.isInteger(raw) && raw >= 0 && raw <= 100) {
    return { intensity: raw, stitching: false };
  }
  issues.add(path, 'hdr must be an integer from 0 to 100, or an object {intensity, stitching}');
  return undefined;
}

function read(value: object, path: string, issues: Issues): Adjustments | undefined {
  const dto = value as AdjustmentsDto;
  const { exposure, saturation, contrast, sharpness } = dto;
  const hdr = absent(dto.hdr) ? undefined : readHdr(dto.hdr, pathOf(path, 'hdr'), issues);
  return issues.has(path) ? undefined : compact({ hdr, exposure, saturation, contrast, sharpness });
}

/**
 * `operations.adjustments`: HDR (local tone mapping), exposure, saturation, contrast and sharpness, after
 * resizing, on the pixels of the output's size (the pixel work and its documented mappings:
 * libs/image-pipeline/src/operations/adjust.operation.ts; HDR runs as a kernel on the pixel pool).
 */
export const adjustmentsOperation: EditOperation<Adjustments, AdjustPlan> = {
  name: 'adjustments',
  dto: AdjustmentsDto,
  description: 'Global adjustments after resizing: HDR, exposure, saturation, contrast, sharpness.',
  read,
  plan: (a) => ({
    exposure: a.exposure ?? 0,
    saturation: a.saturation ?? 0,
    contrast: a.contrast ?? 0,
    sharpness: a.sharpness ?? 0,
    ...(a.hdr && { hdr: { intensity: a.hdr.intensity, stitching: a.hdr.stitching } }),
  }),
  step: {
    phase: 'adjustments',
    assumes8BitSrgb: true,
    materialises: true,
    run: (stage, plan, { pool }) => adjust(stage, plan, pool),
  },
};
