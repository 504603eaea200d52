import { ServiceException } from '@app/common';
import sharp, { type Sharp } from 'sharp';
import { openInput } from '../decode/decode-input';
import type { ImageProbe } from '../decode/probe';
import type { IdentityCropPlan } from '../edit-plan';
import type { DetectedFace, FaceDetector } from '../ports/face-detector.port';
import type { PixelPool } from '../workers/pixel-pool';
import { ready, type StageImage } from './stage';

/** What finding the faces of an input needs: the decoders' pool, the pixel limit, the detector. */
export interface FaceSearch {
  pool: Pick<PixelPool, 'run'>;
  maxPixels: number;
  detector?: FaceDetector;
  /** Decode a JPEG despite libjpeg's warnings (the second try of withJpegWarningsTolerated). */
  tolerateJpegWarnings?: boolean;
}

/** The detection size of an image: its display size scaled down (never up) to the detector's longer side. */
export function detectionSize(width: number, height: number, side: number): { width: number; height: number } {
  const scale = Math.min(1, side / Math.max(width, height));
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}

/**
 * The faces of an input as displayed (EXIF orientation applied), in its full-resolution pixel coordinates. The
 * image is decoded at the detector's resolution (JPEG and WebP shrink while decoding), flattened onto white and
 * converted to 8-bit sRGB; the detector's boxes and landmarks are scaled back to the display size.
 */
export async function findFaces(bytes: Buffer, probe: ImageProbe, search: FaceSearch): Promise<DetectedFace[]> {
  const detector = search.detector;
  if (!detector) {
    // The planner answers 501 first where the capability is absent; a process whose capability and provider
    // disagree is told the same way rather than crashing.
    throw new ServiceException(
      'OPERATION_NOT_IMPLEMENTED',
      'The face detection model that identity_crop needs is not installed on this service.',
    );
  }
  const source = await openInput(bytes, probe, search.pool, search.maxPixels, search.tolerateJpegWarnings);
  const image = sharp(source.input, source.options).autoOrient();
  return facesOf(image, { width: probe.displayWidth, height: probe.displayHeight }, detector);
}

/**
 * The faces of `image` (of `size`, as displayed), in its pixel coordinates: scaled down to the detector's side,
 * flattened onto white, 8-bit sRGB; the detector's boxes and landmarks scaled back.
 */
export async function facesOf(
  image: Sharp,
  { width, height }: { width: number; height: number },
  detector: FaceDetector,
): Promise<DetectedFace[]> {
  const size = detectionSize(width, height, detector.inputSide);
  const { data, info } = await image
    .resize({ ...size, fit: 'fill', kernel: 'lanczos3' })
    .flatten({ background: '#ffffff' })
    .toColourspace('srgb')
    .raw({ depth: 'uchar' })
    .toBuffer({ resolveWithObject: true });
  const rgb = { data: new Uint8Array(data.buffer, data.byteOffset, data.length), ...size, channels: 3 as const };
  if (info.channels !== 3) throw new Error(`face detection input has ${info.channels} channels, expected 3`);
  const faces = await detector.detect(rgb);
  const sx = width / size.width;
  const sy = height / size.height;
  return faces.map((face) => ({
    box: {
      left: face.box.left * sx,
      top: face.box.top * sy,
      width: face.box.width * sx,
      height: face.box.height * sy,
    },
    score: face.score,
    landmarks: face.landmarks.map(({ x, y }) => ({ x: x * sx, y: y * sy })),
  }));
}

/**
 * The identity crop (libs/editing's registered `privacy` operation placed the cut from the faces found in the
 * input): the rows from `top` down, on the original pixels, at any bit depth; a lazy extract on the pipeline.
 */
export async function cropBelowFaces(current: StageImage, plan: IdentityCropPlan): Promise<StageImage> {
  const stage = await ready(current);
  const height = stage.height - plan.top;
  if (plan.top <= 0 || height <= 0) throw new RangeError(`identity crop at row ${plan.top} of ${stage.height}`);
  const image = stage.image.extract({ left: 0, top: plan.top, width: stage.width, height });
  return { ...stage, image, height, fresh: false };
}
