import type { PlateBlurPlan } from '@app/image-pipeline';
import type { Privacy } from './edit-request.model';

/**
 * `privacy.blur_car_plate`: the plate blur step, which has no settings of its own (the text detector's working
 * size is the process's, TEXT_DETECTION_MAX_SIDE). Its model is checked with the others (model-capabilities.ts).
 */
export function planPlateBlur(privacy: Privacy | undefined): PlateBlurPlan | undefined {
  return privacy?.blur_car_plate ? {} : undefined;
}
