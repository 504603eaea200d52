import { ServiceException } from '@app/common';

/**
 * Whether a failed item may succeed when run again: a network failure, a timeout, a store's or origin's 5xx,
 * a full edit queue, or an unexpected error. A bad image, a 4xx from the origin, a refused URL or a missing
 * object fail for good at once.
 */
export function isTransient(error: unknown): boolean {
  if (!(error instanceof ServiceException)) return true;
  if (error.codeName === 'FETCH_FAILED') return !/answered HTTP 4\d\d/.test(error.message);
  if (error.codeName === 'OPERATION_NOT_IMPLEMENTED') return false;
  return error.status >= 500;
}

/** The message an item's failure shows in the task's `errors` (never a stack, never a secret). */
export function failureMessage(error: unknown): string {
  if (error instanceof ServiceException) return error.message;
  return 'The image could not be processed because of an internal error; see the service log.';
}
