import { ServiceException } from '@app/common';
import type { TextDetector } from '../ports/text-detector.port';
import type { StepContext } from './pipeline-step';
import { plateCandidates, scaledCandidate } from './plate-regions';
import { fromRaw, ready, toRaw, type StageImage } from './stage';
import { resizedRaw } from './subject-matte';

function requireTextDetector(context: StepContext): TextDetector {
  if (context.textDetector) return context.textDetector;
  // The planner answers 501 first where the capability is absent; a process whose capability and provider
  // disagree is told the same way rather than as a crash.
  throw new ServiceException(
    'OPERATION_NOT_IMPLEMENTED',
    'The text detection model that car plate blur needs is not installed on this service.',
  );
}

/**
 * Car plates blurred beyond recognition, on the original pixels: text is detected on the image scaled to the
 * detector's working size (at most TextDetector.maxSide per side), the regions shaped like a plate's text are
 * kept (plate-regions.ts), mapped back to full size, and those whose text contrasts like a plate's are blurred
 * with their plate around them (kernels/plate-blur.kernel.ts). An image without such text is returned as it
 * came, untouched.
 */
export async function blurPlates(current: StageImage, context: StepContext): Promise<StageImage> {
  const detector = requireTextDetector(context);
  const stage = await ready(current);
  const { width, height } = stage;
  const scale = Math.min(1, detector.maxSide / Math.max(width, height));
  const small = await resizedRaw(
    stage.image.clone(),
    Math.max(1, Math.round(width * scale)),
    Math.max(1, Math.round(height * scale)),
    3,
  );
  const regions = await detector.detect({ ...small, channels: 3 });
  const factor = { x: width / small.width, y: height / small.height };
  const plates = plateCandidates(regions, small).map((candidate) => scaledCandidate(candidate, factor));
  if (plates.length === 0) return stage;
  const pixels = await toRaw(stage.image);
  const result = await context.pool.run('plate-blur', { image: pixels, plates });
  return fromRaw(result.image);
}
