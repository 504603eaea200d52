import { blurPlates, cropBelowFaces, type IdentityCropPlan } from '@app/image-pipeline';
import type { Issues } from '../../dto/dto-validation';
import type { EditOperation } from '../edit-operation';
import { planIdentityCrop } from './identity-crop';
import { PrivacyDto } from './privacy.dto';

export interface Privacy {
  blur_car_plate: boolean;
  identity_crop: boolean;
}

/** The part of the plan: the rows cut away above the faces, and whether car plates are blurred. */
export interface PrivacyPart {
  identityCrop?: IdentityCropPlan;
  blurPlates: boolean;
}

function read(value: object, path: string, issues: Issues): Privacy | undefined {
  const dto = value as PrivacyDto;
  if (issues.has(path)) return undefined;
  return { blur_car_plate: dto.blur_car_plate ?? false, identity_crop: dto.identity_crop ?? false };
}

/**
 * `operations.privacy`, first after decoding: `identity_crop` cuts away everything above the line between nose
 * and mouth of every face found (the executor finds the faces first, `findsFaces`, and the edit is planned from
 * them, so every later step is sized from the cut image), then `blur_car_plate` blurs text shaped like a plate's
 * (the pipeline's kernels: cropBelowFaces, a lazy extract at any bit depth; blurPlates, through the TextDetector
 * port and the pixel pool). Before the faces are known (the first plan, whose memory bounds both) nothing is cut.
 */
export const privacyOperation: EditOperation<Privacy, PrivacyPart> = {
  name: 'privacy',
  dto: PrivacyDto,
  description:
    'Privacy: `identity_crop` (everything above the line between nose and mouth cut away) and `blur_car_plate`.',
  read,
  findsFaces: (value) => value.identity_crop,
  plan: (value, { size, faces }) => {
    const identityCrop = value.identity_crop && faces ? planIdentityCrop(faces, size.height) : undefined;
    if (!identityCrop && !value.blur_car_plate) return undefined;
    return { ...(identityCrop && { identityCrop }), blurPlates: value.blur_car_plate };
  },
  step: {
    phase: 'privacy',
    // the crop works on the original pixels at any depth; the plate detector's constants are 8-bit sRGB
    assumes8BitSrgb: (part) => part.blurPlates,
    // the crop is lazy and only removes rows; plate blur holds the image
    materialises: (part) => part.blurPlates,
    size: (part, size) =>
      part.identityCrop ? { width: size.width, height: size.height - part.identityCrop.top } : size,
    async run(stage, part, context) {
      const cut = part.identityCrop ? await cropBelowFaces(stage, part.identityCrop) : stage;
      return part.blurPlates ? blurPlates(cut, context) : cut;
    },
  },
  needs: [
    { capability: 'text-detection', at: 'blur_car_plate', when: (value) => value.blur_car_plate },
    { capability: 'face-detection', at: 'identity_crop', when: (value) => value.identity_crop },
  ],
};
