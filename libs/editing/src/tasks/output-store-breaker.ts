import { Inject, Injectable } from '@nestjs/common';
import { AppConfig, LruCache } from '@app/common';
import { parseStorageReference } from '@app/storage';

/** Tasks whose output store this process saw fail, remembered to count their next success for that store. */
const TASKS_REMEMBERED = 1_000;

/**
 * The circuit breaker of output stores (docs/batch.md, "When the output store is down"), per process: counts the
 * write failures in a row of each store (`storage:<id>`, or `temporary`: ResultWriter's outputStoreOf); a success
 * of a task writing to it starts the count again. Once a store failed TASK_STORE_FAILURES times in a row, each
 * further failure of it pauses the task it happened in (TaskRunner), instead of retrying the item: a store that is
 * down is retried as one, by probes of its paused tasks (PausedTaskProber), not item by item. The count is not
 * started again when a task resumes: the first write after a resume that fails pauses its task again at once.
 */
@Injectable()
export class OutputStoreBreaker {
  private readonly failures = new Map<string, number>();
  private readonly storeOfTask = new LruCache<number, string>(TASKS_REMEMBERED);

  constructor(@Inject(AppConfig) private readonly config: AppConfig) {}

  /** Counts a failed write of task `taskId` to `store`; true when the store is now open (its tasks pause). */
  failed(taskId: number, store: string): boolean {
    const count = (this.failures.get(store) ?? 0) + 1;
    this.failures.set(store, count);
    this.storeOfTask.set(taskId, store);
    return count >= this.config.taskStoreFailures;
  }

  /** An item of `taskId` was written: its store (when one of its writes failed before) answers again. */
  succeeded(taskId: number): void {
    const store = this.storeOfTask.get(taskId);
    if (store === undefined) return;
    this.storeOfTask.delete(taskId);
    this.failures.delete(store);
  }
}

/** What a paused task's body says of its store: `the output storage "out2"`, or the temporary bucket. */
export function describeOutputStore(destination: string | undefined): string {
  if (destination === undefined) return 'the temporary bucket';
  const parsed = parseStorageReference(destination);
  return 'error' in parsed ? 'the output storage' : `the output storage "${parsed.name}"`;
}

/** Why a task is PAUSED (its `pause.reason`): the store, the failure, and what happens next, until when. */
export function pauseReason(destination: string | undefined, failure: string, until: Date): string {
  return (
    `Paused: ${describeOutputStore(destination)} failed several writes in a row (${failure.replace(/\.$/, '')}). ` +
    'The task resumes by itself once the store answers again; its images not written by ' +
    `${until.toISOString()} then end in ERROR.`
  );
}

/** The one message of the images a PAUSED task gave up, once paused for `limitMs` (TASK_STORE_PAUSE_MAX_MS). */
export function pauseExpiredMessage(destination: string | undefined, limitMs: number): string {
  return (
    `The image was not written: ${describeOutputStore(destination)} did not answer for ` +
    `${Math.round(limitMs / 1000)} s (TASK_STORE_PAUSE_MAX_MS), so the task stopped waiting for it.`
  );
}
