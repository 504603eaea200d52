import { ServiceException } from '@app/common';
import { CorruptImageError, PixelLimitError, UnsupportedImageError } from '@app/image-pipeline';

/**
 * The pipeline's plain errors as the service's 422s, their details under `field` (the member that named the
 * image); anything else passes through (a 500, logged).
 */
export function toImageError(error: unknown, field = 'input'): unknown {
  if (error instanceof UnsupportedImageError) {
    return new ServiceException('IMAGE_UNSUPPORTED', undefined, { [field]: [error.message] });
  }
  if (error instanceof PixelLimitError) {
    const message = `${error.message.replace(/\.$/, '')}; an operator can raise the limit with MAX_INPUT_PIXELS.`;
    return new ServiceException('IMAGE_TOO_LARGE', message.charAt(0).toUpperCase() + message.slice(1), {
      input: [error.message],
    });
  }
  if (error instanceof CorruptImageError) {
    return new ServiceException('IMAGE_CORRUPT', undefined, { [field]: [error.message] });
  }
  return error;
}
