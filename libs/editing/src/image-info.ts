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
 * `tmp_url` empty, `object_key`, `object_bucket` (where the store has buckets), `object_uri`,
 * `service_storage_uri` and its alias `claid_storage_uri` filled.
 */
export interface OutputImageInfo extends ImageInfo {
  tmp_url: string;
  object_key?: string;
  object_bucket?: string;
  object_uri?: string;
  service_storage_uri?: string;
  /** The same value as `service_storage_uri`, under the name the API family's existing clients read. */
  claid_storage_uri?: string;
}

/** The one place that names a written result as a storage reference: both fields, always the same value. */
export function storageUriFields(
  uri: string,
): Required<Pick<OutputImageInfo, 'service_storage_uri' | 'claid_storage_uri'>> {
  return { service_storage_uri: uri, claid_storage_uri: uri };
}

export function imageInfo(format: ImageMediaType, width: number, height: number): ImageInfo {
  const { ext, mime } = MEDIA_TYPES[format];
  return { ext, mps: Math.round((width * height) / 100) / 10_000, mime, format, width, height };
}
