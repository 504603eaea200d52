import { MEDIA_TYPES, type ImageMediaType } from '@app/common';

/** ImageInfo of the contract: what an input or output image is. */
export interface ImageInfo {
  /** File extension without the dot: jpg, png, webp, avif, tiff, gif, bmp, heic. */
  ext: string;
  /** Megapixels: width x height / 1,000,000, rounded to 4 decimals. */
  mps: number;
  mime: string;
  /** Lower-case format name: jpeg, png, webp, avif, tiff, gif, bmp, heic. */
  format: string;
  width: number;
  height: number;
}

/**
 * OutputImageInfo: ImageInfo plus where the result is. Temporary bucket: `tmp_url`. A storage destination:
 * `tmp_url` empty, `object_key`, `object_bucket` (where the store has buckets), `object_uri` and
 * `service_storage_uri` filled.
 */
export interface OutputImageInfo extends ImageInfo {
  tmp_url: string;
  object_key?: string;
  object_bucket?: string;
  object_uri?: string;
  service_storage_uri?: string;
}

export function imageInfo(format: ImageMediaType, width: number, height: number): ImageInfo {
  const { ext, mime } = MEDIA_TYPES[format];
  return { ext, mps: Math.round((width * height) / 100) / 10_000, mime, format, width, height };
}
