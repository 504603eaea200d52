import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ServiceException } from '@app/common';
import { CorruptImageError, UnsupportedImageError } from '@app/image-pipeline';
import { unsuccessfulAnswer } from '@app/storage';
import { WebFolderDriver } from '@app/storage/types/web-folder/web-folder.driver';
import { Deadline, toFetchError, tooLarge } from '@app/storage/fetch/fetch-stream';
import { editBusy } from '../admission/admission-gate';
import { toImageError } from '../image-errors';
import { failureMessage, isTransient } from './task-failure';

/** What a web folder's read fails with when its server answers `status`. */
async function webFolderFailure(status: number): Promise<unknown> {
  const folder = new WebFolderDriver('http://folder.test/', {
    open: (url) => Promise.resolve({ url, status, headers: {}, body: Readable.from([]) }),
  });
  return folder.read('a.jpg').catch((error: unknown) => error);
}

/** The reason a Deadline of 1 ms fails a download with. */
async function timedOut(): Promise<ServiceException> {
  const deadline = new Deadline(1, 'http://origin.test/a.jpg');
  try {
    return await new Promise<ServiceException>((resolve) => deadline.onAbort(resolve));
  } finally {
    deadline.dispose();
  }
}

const errno = (code: string) => Object.assign(new Error(`connect ${code} 10.0.0.1:80`), { code });

// Each error is made by the function that makes it in the service (the storage drivers' own answers are in their
// specs, SafeFetcher's end to end in test/safe-fetcher.e2e-spec.ts), so the table follows the code, not a copy of it.
describe('isTransient', () => {
  it.each<[string, () => unknown, boolean]>([
    ['origin 503', () => unsuccessfulAnswer('The URL', 503), true],
    ['origin 500', () => unsuccessfulAnswer('The URL', 500), true],
    ['origin 429 (throttled)', () => unsuccessfulAnswer('The URL', 429), true],
    ['origin 408', () => unsuccessfulAnswer('The URL', 408), true],
    ['origin 404', () => unsuccessfulAnswer('The URL', 404), false],
    ['origin 403', () => unsuccessfulAnswer('The URL', 403), false],
    ['webhook 502', () => unsuccessfulAnswer('The webhook', 502), true],
    ['webhook 410', () => unsuccessfulAnswer('The webhook', 410), false],
    ['connection refused', () => toFetchError(errno('ECONNREFUSED'), 'http://origin.test/'), true],
    ['name not resolved', () => toFetchError(errno('ENOTFOUND'), 'http://origin.test/'), true],
    ['invalid HTTP answer', () => toFetchError(errno('HPE_INVALID_CONSTANT'), 'http://origin.test/'), true],
    ['total timeout', timedOut, true],
    ['over the size cap', () => tooLarge('http://origin.test/', 100, 200), false],
    ['web folder 503', () => webFolderFailure(503), true],
    ['web folder 429', () => webFolderFailure(429), true],
    ['web folder 404', () => webFolderFailure(404), false],
    ['web folder 403', () => webFolderFailure(403), false],
    ['full edit queue', () => editBusy(), true],
    ['corrupt image', () => toImageError(new CorruptImageError('truncated')), false],
    ['not an image', () => toImageError(new UnsupportedImageError('no signature')), false],
    ['refused URL', () => new ServiceException('FETCH_REFUSED'), false],
    ['missing object', () => new ServiceException('STORAGE_OBJECT_NOT_FOUND'), false],
    ['store refused the credentials', () => new ServiceException('STORAGE_UNREACHABLE'), false],
    ['store failed', () => new ServiceException('STORAGE_BACKEND_FAILED'), true],
    ['operation not implemented (a 501)', () => new ServiceException('OPERATION_NOT_IMPLEMENTED'), false],
    ['unexpected error', () => new Error('database is locked'), true],
  ])('%s -> %s', async (_name, make, transient) => {
    expect(isTransient(await make())).toBe(transient);
  });

  it('reads what the error was made as, never its message', () => {
    const notFound = unsuccessfulAnswer('The URL', 404);
    const reworded = (error: ServiceException, message: string) =>
      new ServiceException(error.codeName, message, error.details, error.headers, { retryable: error.retryable });
    // A 404 answer reworded, even into the words of a 503, still fails at once...
    expect(isTransient(reworded(notFound, 'The origin said no.'))).toBe(false);
    expect(isTransient(reworded(notFound, 'The URL answered HTTP 503.'))).toBe(false);
    // ...and a network failure worded like a 404 answer is still retried.
    const refused = toFetchError(errno('ECONNREFUSED'), 'http://origin.test/');
    expect(isTransient(reworded(refused, notFound.message))).toBe(true);
  });
});

describe('failureMessage', () => {
  it('shows a ServiceException message and hides anything else', () => {
    expect(failureMessage(new ServiceException('IMAGE_CORRUPT', 'The input image cannot be decoded.'))).toBe(
      'The input image cannot be decoded.',
    );
    expect(failureMessage(new Error('password=hunter2 at /srv/x.js:1'))).not.toMatch(/hunter2/);
  });
});
