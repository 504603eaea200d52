import sharp from 'sharp';
import type { FaceDetector } from '../ports/face-detector.port';
import type { RawImage } from '../ports/segmenter.port';
import type { SuperResolver } from '../ports/super-resolver.port';
import { facesOf } from './identity-crop.operation';
import { rawImage } from './subject-matte';

/**
 * The face-aware part of `upscale: faces`. The whole image is enlarged by the network the mode runs at its size
 * (above SUPER_RESOLUTION_MEDIUM_MAX_PIXELS the light one, to keep its time bounded); each face found is then
 * enlarged again on its own, a region small enough for the network best at faces, and blended into the result
 * with a feathered edge, so the rest of the image keeps the fast network's result.
 * - `margin`: the face's box grown by this share of its size on each side (hair, ears, chin: what makes a face);
 * - `feather`: the share of the region's smaller side over which it fades into the whole image's result;
 * - `maxFaces`: the largest faces handled, at most (a crowd would cost a network run per face).
 */
export const FACE_DETAIL = { margin: 0.3, feather: 0.15, maxFaces: 8 } as const;

interface Region {
  left: number;
  top: number;
  width: number;
  height: number;
}

/**
 * `enlarged` (the whole of `rgb` enlarged by `mode` `faces` at `enlarged.scale`) with its faces enlarged again by
 * the face network where that differs from the whole image's; unchanged when there is no face, or no gain.
 */
export async function withFaceDetail(
  rgb: RawImage,
  enlarged: RawImage & { scale: number },
  factor: number,
  resolver: SuperResolver,
  detector: FaceDetector,
): Promise<RawImage & { scale: number }> {
  const whole = resolver.network('faces', rgb.width * rgb.height);
  const faces = await facesOf(rawImage(rgb), rgb, detector);
  const regions = faces
    .map((face) => grown(face.box, rgb))
    .sort((a, b) => b.width * b.height - a.width * a.height)
    .slice(0, FACE_DETAIL.maxFaces)
    .filter((region) => resolver.network('face', region.width * region.height) !== whole);
  if (regions.length === 0) return enlarged;
  const layers: sharp.OverlayOptions[] = [];
  for (const region of regions) {
    const crop = await rawImage(rgb).extract(region).raw().toBuffer();
    const face = await resolver.upscale({ data: crop, ...region, channels: 3 }, 'face', factor);
    const { width, height, scale } = face;
    const mask = await featherMask(width, height);
    const rgba = await sharp(face.data, { raw: { width, height, channels: 3 } })
      .joinChannel(mask, { raw: { width, height, channels: 1 } })
      .raw()
      .toBuffer();
    layers.push({
      input: rgba,
      raw: { width, height, channels: 4 },
      left: region.left * scale,
      top: region.top * scale,
    });
  }
  const data = await rawImage(enlarged).composite(layers).removeAlpha().raw().toBuffer();
  return { ...enlarged, data };
}

/** The face's box grown by the margin, in whole pixels, within the image. */
function grown(box: Region, { width, height }: { width: number; height: number }): Region {
  const left = Math.max(0, Math.floor(box.left - box.width * FACE_DETAIL.margin));
  const top = Math.max(0, Math.floor(box.top - box.height * FACE_DETAIL.margin));
  const right = Math.min(width, Math.ceil(box.left + box.width * (1 + FACE_DETAIL.margin)));
  const bottom = Math.min(height, Math.ceil(box.top + box.height * (1 + FACE_DETAIL.margin)));
  return { left, top, width: Math.max(1, right - left), height: Math.max(1, bottom - top) };
}

/** 255 inside, fading to 0 at the border over `feather` of the smaller side (a blurred inset rectangle). */
async function featherMask(width: number, height: number): Promise<Buffer> {
  const fade = Math.max(1, Math.round(Math.min(width, height) * FACE_DETAIL.feather));
  const inset = Math.round(fade / 2);
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="${width}" height="${height}" fill="#000"/><rect x="${inset}" y="${inset}" width="${Math.max(1, width - 2 * inset)}" height="${Math.max(1, height - 2 * inset)}" fill="#fff"/></svg>`;
  return sharp(Buffer.from(svg))
    .blur(Math.max(0.3, fade / 4))
    .extractChannel(0)
    .raw()
    .toBuffer();
}
