import { ServiceException } from '@app/common';
import { logConnectionFailure } from '../fetch/connection-failure';
import { isTransientStatus } from '../fetch/http-answer';

/**
 * What an object store's error answer means to the driver contract (storage-driver.ts), for the drivers that speak
 * HTTP to it (S3, Azure Blob): refused credentials and other refusals are STORAGE_UNREACHABLE; throttling (429,
 * a busy 503), 408 and 5xx are STORAGE_BACKEND_FAILED, which may pass when asked again. `code` is the store's own
 * name of the error, `holder` what the credentials were refused for (`bucket "b"`). Never a credential.
 */
export function answerFailure(status: number, code: string, holder: string, refused = false): ServiceException {
  if (refused || status === 401 || status === 403) {
    return new ServiceException('STORAGE_UNREACHABLE', `The storage refused the credentials for ${holder} (${code}).`);
  }
  if (status >= 400 && !isTransientStatus(status)) {
    return new ServiceException('STORAGE_UNREACHABLE', `The storage refused the request (${code}).`);
  }
  return new ServiceException('STORAGE_BACKEND_FAILED', `The storage failed (${code}, HTTP ${status}).`);
}

/**
 * A store that did not answer (refused, reset, silent, unknown name): one message for every cause, the cause in the
 * server's log only (logConnectionFailure says why). `where` is the store as describeUrl writes it.
 */
export function noAnswer(where: string, error: unknown): ServiceException {
  logConnectionFailure(where, error);
  return new ServiceException('STORAGE_BACKEND_FAILED', `Could not reach ${where}, or it did not answer.`);
}
