import { describe, expect, it } from 'vitest';
import { describeApiError } from './api-client';
import { EXIT, exitCodeOfStatus } from './exit-codes';

describe('exitCodeOfStatus', () => {
  it.each([
    [400, EXIT.INVALID],
    [404, EXIT.INVALID],
    [409, EXIT.INVALID],
    [422, EXIT.INVALID],
    [401, EXIT.AUTH],
    [402, EXIT.AUTH],
    [403, EXIT.AUTH],
    [429, EXIT.AUTH],
    [500, EXIT.UNAVAILABLE],
    [502, EXIT.UNAVAILABLE],
    [503, EXIT.UNAVAILABLE],
  ])('HTTP %i -> exit %i', (status, code) => expect(exitCodeOfStatus(status)).toBe(code));
});

describe('describeApiError', () => {
  it('gives the message, then each field with its reasons', () => {
    const body = {
      error_code: '9000',
      error_message: 'Two problems.',
      error_details: { 'operations.resizing.width': ['must be positive', 'must be a number'], input: 'is required' },
    };
    expect(describeApiError(422, body)).toBe(
      'Two problems.\n  operations.resizing.width: must be positive; must be a number\n  input: is required',
    );
  });

  it('unwraps the 429 body and says what to do', () => {
    const text = describeApiError(429, { detail: { error_message: 'Too Many Requests. Rate limit exceeded.' } });
    expect(text).toBe('Too Many Requests. Rate limit exceeded.\nToo many requests: wait a moment and try again.');
  });

  it('names the status when the body is not an Error', () => {
    expect(describeApiError(502, undefined)).toBe('The service answered HTTP 502.');
  });
});
