import {
  blurBackground,
  matteSize,
  removeBackground,
  type BlurBackgroundPlan,
  type RemoveBackgroundPlan,
} from '@app/image-pipeline';
import type { EditOperations } from '../../edit-request.model';
import type { EditOperation } from '../edit-operation';
import { planBlur, planRemoval } from './background-plan';
import { BackgroundDto } from './background.dto';
import { readBackground, type Background } from './background.read';

/** The part of the plan: the background removed (cut out, clipped to the object or not), or blurred around it. */
export interface BackgroundPart {
  remove?: RemoveBackgroundPlan;
  blur?: BlurBackgroundPlan;
}

/** Frames the background steps hold besides the pipeline's, and bytes per pixel of the matte's working planes. */
const BACKGROUND_FRAMES = 4;
const MATTE_BYTES_PER_PIXEL = 96;

/**
 * The request's background group: its colour is the fill of everything the edit adds or flattens (the planner's
 * backgroundColour: flatten, padding, a canvas resize), and a removal gives the image an alpha channel.
 */
export function backgroundOf(operations: EditOperations): Background | undefined {
  return operations.registered?.background as Background | undefined;
}

/**
 * `operations.background`: `remove` (the object cut out by the segmentation model and refined; `clipping` crops to
 * its box, and the steps after are planned again for what is left) or `blur` around it, after the restorations
 * and before padding; `color` fills what the edit adds or flattens (backgroundOf). Style transfer refuses to follow
 * a removal or blur (the generative operation's check).
 */
export const backgroundOperation: EditOperation<Background, BackgroundPart> = {
  name: 'background',
  dto: BackgroundDto,
  description:
    'The background: `remove` (cut out, clipped or not), `blur` around the object, and `color`, which fills what the edit adds or flattens.',
  read: readBackground,
  plan: (value, { size }) => {
    const remove = planRemoval(value);
    const blur = planBlur(value, Math.max(size.width, size.height));
    return remove || blur ? { ...(remove && { remove }), ...(blur && { blur }) } : undefined;
  },
  step: {
    phase: 'background',
    assumes8BitSrgb: true,
    materialises: true,
    // clipping crops to the object: the steps after it are planned again for the size it leaves
    crops: true,
    memory: (_part, { frame, inputSize }) => {
      const working = matteSize(inputSize.width, inputSize.height);
      return BACKGROUND_FRAMES * frame + working.width * working.height * MATTE_BYTES_PER_PIXEL;
    },
    run: (stage, part, context) =>
      part.remove
        ? removeBackground(stage, part.remove, context)
        : part.blur
          ? blurBackground(stage, part.blur, context)
          : Promise.resolve(stage),
  },
  needs: [
    { capability: 'segmentation', at: 'remove', when: (value) => value.remove !== undefined },
    { capability: 'segmentation', at: 'blur', when: (value) => value.blur !== undefined },
  ],
};
