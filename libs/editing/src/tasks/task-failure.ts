import { ServiceException } from '@app/common';

/**
 * Whether a failed item (or webhook delivery) may succeed when run again, as the error's maker marked it
 * (ServiceException.retryable: a network failure, a timeout, a store's or origin's 5xx, 408 or 429, a full edit
 * queue). An unexpected error is retried too: it is not known to be permanent. The message is never read, so
 * rewording one cannot change what is retried.
 */
export function isTransient(error: unknown): boolean {
  return error instanceof ServiceException ? error.retryable : true;
}

/** The message an item's failure shows in the task's `errors` (never a stack, never a secret). */
export function failureMessage(error: unknown): string {
  if (error instanceof ServiceException) return error.message;
  return 'The image could not be processed because of an internal error; see the service log.';
}

/**
 * What an item (or a task, for its listing) shows when the queue gave it up without a failure of its own: every
 * worker that ran it died before it ended (BullMQ's stalled-job limit), as an image that needs more memory than a
 * worker has would make them.
 */
export const ABANDONED_MESSAGES = {
  item: 'The image could not be processed: the worker editing it stopped before it was done, several times; see the service log.',
  listing:
    'The input could not be listed: the worker listing it stopped before it was done, several times; see the service log.',
} as const;
