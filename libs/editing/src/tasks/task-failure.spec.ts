import { describe, expect, it } from 'vitest';
import { ServiceException } from '@app/common';
import { failureMessage, isTransient } from './task-failure';

describe('isTransient', () => {
  it.each([
    [new ServiceException('FETCH_FAILED', 'Download of x failed: connect refused (ECONNREFUSED).'), true],
    [new ServiceException('FETCH_FAILED', 'The URL answered HTTP 503.'), true],
    [new ServiceException('FETCH_FAILED', 'The URL answered HTTP 404.'), false],
    [new ServiceException('STORAGE_BACKEND_FAILED'), true],
    [new ServiceException('EDIT_BUSY'), true],
    [new ServiceException('IMAGE_CORRUPT'), false],
    [new ServiceException('FETCH_REFUSED'), false],
    [new ServiceException('STORAGE_OBJECT_NOT_FOUND'), false],
    [new ServiceException('OPERATION_NOT_IMPLEMENTED'), false],
    [new Error('database is locked'), true],
  ])('%s -> %s', (error, transient) => {
    expect(isTransient(error)).toBe(transient);
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
