import type { BlurBackgroundPlan, RemoveBackgroundPlan, SubjectPlan } from '@app/image-pipeline';
import type { BlurLevel, BlurType } from './background.dto';
import type { Background, ObjectSelection } from './background.read';

/**
 * The strength of `background.blur`, as a fraction of the image's longer side, so that a level looks the same at
 * any resolution: the Gaussian's sigma (`regular`) or the disc's radius (`lens`; a disc of radius r spreads
 * about as far as a Gaussian of sigma r / 2). On a 1000 px image: sigma 3, 7, 15 px; disc radius 6, 14, 30 px.
 */
export const BLUR_STRENGTH: Readonly<Record<BlurType, Readonly<Record<BlurLevel, number>>>> = {
  regular: { low: 0.003, medium: 0.007, high: 0.015 },
  lens: { low: 0.006, medium: 0.014, high: 0.03 },
};

/**
 * `selective.object_to_keep` is honoured as far as a salient-object model allows: the general mask, reduced to
 * its most salient connected object. The description is not matched against the image.
 */
function subjectPlan(selection: ObjectSelection): SubjectPlan {
  return 'selective' in selection
    ? { category: 'general', largestOnly: true }
    : { category: selection.category, largestOnly: false };
}

export function planRemoval(background: Background | undefined): RemoveBackgroundPlan | undefined {
  const remove = background?.remove;
  return remove && { subject: subjectPlan(remove), clipping: remove.clipping };
}

/**
 * The blur around the object of an image whose longer side is `longerSide` pixels. With a removal in the same
 * request there is no background left to blur (it becomes `background.color`): no blur step.
 */
export function planBlur(background: Background | undefined, longerSide: number): BlurBackgroundPlan | undefined {
  const blur = background?.blur;
  if (!blur || background.remove) return undefined;
  return {
    subject: subjectPlan(blur),
    kind: blur.type === 'lens' ? 'lens' : 'gaussian',
    radius: Math.max(1, BLUR_STRENGTH[blur.type][blur.level] * longerSide),
  };
}
