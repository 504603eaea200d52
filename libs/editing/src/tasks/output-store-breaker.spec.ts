import { describe, expect, it } from 'vitest';
import { loadConfig } from '@app/common';
import { OutputStoreBreaker, pauseExpiredMessage, pauseReason } from './output-store-breaker';

const breaker = () => new OutputStoreBreaker(loadConfig({ TASK_STORE_FAILURES: '3' }));

describe('OutputStoreBreaker', () => {
  it('opens at the TASK_STORE_FAILURES-th failure in a row of one store, whichever tasks they happen in', () => {
    const open = breaker();
    expect([open.failed(1, 'storage:7'), open.failed(2, 'storage:7')]).toEqual([false, false]);
    expect(open.failed(1, 'temporary')).toBe(false);
    expect(open.failed(3, 'storage:7')).toBe(true);
    // stays open: each further failure pauses its task at once
    expect(open.failed(4, 'storage:7')).toBe(true);
    expect(open.failed(4, 'storage:8')).toBe(false);
  });

  it('starts the count again when a task that failed on the store writes to it', () => {
    const open = breaker();
    open.failed(1, 'storage:7');
    open.failed(1, 'storage:7');
    open.succeeded(1);
    expect([open.failed(1, 'storage:7'), open.failed(2, 'storage:7')]).toEqual([false, false]);
    expect(open.failed(2, 'storage:7')).toBe(true);
    // a success of a task that never failed on a store changes nothing
    open.succeeded(9);
    expect(open.failed(2, 'storage:7')).toBe(true);
  });
});

describe('pause messages', () => {
  it.each([
    ['storage://out2/res/', 'the output storage "out2"'],
    [undefined, 'the temporary bucket'],
  ])('name the store of %s as %s', (destination, named) => {
    const until = new Date('2026-11-28T19:00:00.000Z');
    expect(pauseReason(destination, 'The storage service failed; try again.', until)).toBe(
      `Paused: ${named} failed several writes in a row (The storage service failed; try again). The task resumes ` +
        'by itself once the store answers again; its images not written by 2026-11-28T19:00:00.000Z then end in ERROR.',
    );
    expect(pauseExpiredMessage(destination, 3_600_000)).toBe(
      `The image was not written: ${named} did not answer for 3600 s (TASK_STORE_PAUSE_MAX_MS), so the task ` +
        'stopped waiting for it.',
    );
  });
});
