import type { Sharp } from 'sharp';
import { outputCapabilities } from '@app/common';
import type { ColourPlan, EditPlan, EncodePlan } from '../edit-plan';
import { cmykProfilePath } from '../colour/cmyk-profiles';
import type { PipelineStep } from './pipeline-step';

/** Where the source's colour stands, from its header (see decode/probe.ts). */
export interface SourceColour {
  space: string;
  /** Path of the source's embedded profile written to disk, when it has one (sharp takes profiles by path). */
  iccPath?: string;
}

/** Whether the output carries the source's own profile (so the pipeline must hand it over as a file). */
export function usesSourceProfile(plan: ColourPlan, encode: EncodePlan, space: string): boolean {
  if (plan.space !== 'auto') return false;
  if (space === 'cmyk') return outputCapabilities(encode.format).cmyk;
  return (space === 'b-w' || space === 'grey16') && outputCapabilities(encode.format).grey;
}

/**
 * The colour space of the output, as docs/api-contract.md ("Image edit") says: a requested CMYK profile; else CMYK and grey
 * sources keep their space and profile where the format holds it (CMYK: jpeg, tiff; grey: jpeg, png, tiff);
 * else sRGB, profile embedded.
 */
export function applyColour(image: Sharp, plan: ColourPlan, encode: EncodePlan, source: SourceColour): Sharp {
  if (plan.space === 'cmyk') return image.withIccProfile(cmykProfilePath(plan.profile));
  if (plan.space === 'rgb') return image.toColourspace('srgb').withIccProfile('srgb');
  if (source.space === 'cmyk' && outputCapabilities(encode.format).cmyk) {
    return image.withIccProfile(source.iccPath ?? 'cmyk');
  }
  if ((source.space === 'b-w' || source.space === 'grey16') && outputCapabilities(encode.format).grey) {
    const grey = image.toColourspace('b-w');
    return source.iccPath ? grey.withIccProfile(source.iccPath) : grey;
  }
  return image.withIccProfile('srgb');
}

/**
 * The resolution written into the file: the format's own density field where it has one (JPEG JFIF, PNG
 * pHYs, TIFF) and EXIF X/YResolution, which also carries it in WebP and AVIF. The source's other EXIF
 * (camera, GPS) is not carried over, as without `dpi`.
 */
export function applyDpi(image: Sharp, dpi: number | undefined): Sharp {
  if (dpi === undefined) return image;
  const resolution = `${dpi}/1`;
  return image
    .withDensity(dpi)
    .withExif({ IFD0: { XResolution: resolution, YResolution: resolution, ResolutionUnit: '2' } });
}

/**
 * The format and its options. AVIF uses `tune: 'ssim'`: at the same quality setting libaom's default
 * (`auto`) was measured here 4-16% slower and 45% larger (docs/benchmarks.md).
 */
export function applyFormat(image: Sharp, plan: EncodePlan): Sharp {
  switch (plan.format) {
    case 'jpeg':
      return image.jpeg({ quality: plan.quality, progressive: plan.progressive });
    case 'png':
      return image.png(PNG_LEVELS[plan.compression]);
    case 'webp':
      return image.webp(plan.lossless ? { lossless: true } : { quality: plan.quality });
    case 'avif':
      return image.avif(plan.lossless ? { lossless: true } : { quality: plan.quality, tune: 'ssim' });
    case 'tiff':
      return plan.compression === 'lzw'
        ? image.tiff({ compression: 'lzw', predictor: 'horizontal' })
        : image.tiff({ compression: 'jpeg', quality: plan.quality });
  }
}

/** `fast`: least time; `optimal`: zlib's usual trade-off; `best`: smallest, with adaptive filtering. */
const PNG_LEVELS = {
  fast: { compressionLevel: 1, adaptiveFiltering: false },
  optimal: { compressionLevel: 6, adaptiveFiltering: false },
  best: { compressionLevel: 9, adaptiveFiltering: true },
} as const;

export function encode(
  image: Sharp,
  plan: { encode: EncodePlan; colour: ColourPlan; dpi?: number },
  source: SourceColour,
): Sharp {
  return applyFormat(applyDpi(applyColour(image, plan.colour, plan.encode, source), plan.dpi), plan.encode);
}

/**
 * Encode: format, `dpi` and colour space set on the pipeline, which the runner then executes (`toBuffer`).
 * The source's own profile is handed over as a file only when the output keeps it.
 */
export const encodeStep: PipelineStep<EditPlan> = {
  name: 'encode',
  phase: 'encode',
  assumes8BitSrgb: false,
  partOf: (plan) => plan,
  async run(stage, plan, { probe, profiles }) {
    const ownProfile = probe.icc && usesSourceProfile(plan.colour, plan.encode, probe.space);
    const colour: SourceColour = {
      space: probe.space,
      iccPath: ownProfile ? await profiles.path(probe.icc!) : undefined,
    };
    return { ...stage, image: encode(stage.image, plan, colour), fresh: false };
  },
};
