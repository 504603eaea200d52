import { expect } from 'vitest';
import { ServiceException } from '@app/common';

/** The ServiceException a promise rejects with; fails the test when it resolves or rejects with anything else. */
export async function rejected(promise: Promise<unknown>): Promise<ServiceException> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ServiceException);
  return error as ServiceException;
}
