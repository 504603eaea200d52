import { ServiceException } from '@app/common';

/**
 * Whether an HTTP status from an origin or a store may be different when the request is sent again: a 5xx, 408 (the
 * server stopped waiting) or 429 (throttled). Any other 4xx is the same answer every time, so retrying it only
 * delays the failure.
 */
export function isTransientStatus(status: number): boolean {
  return status >= 500 || status === 408 || status === 429;
}

/**
 * FETCH_FAILED for a final answer that is not 2xx (`subject` starts the message: "The URL", "The webhook"),
 * retryable as its status says.
 */
export function unsuccessfulAnswer(subject: string, status: number): ServiceException {
  return new ServiceException(
    'FETCH_FAILED',
    `${subject} answered HTTP ${status}.`,
    {},
    {},
    { retryable: isTransientStatus(status) },
  );
}
