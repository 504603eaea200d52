import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  AppConfig,
  LruCache,
  mediaTypeOfExtension,
  taskItemDuration,
  taskItems,
  webhookDeliveries,
  webhookDeliveryDuration,
} from '@app/common';
import { type EditTaskEntity, isFinalTaskStatus, KeyRows, type NewItem, TaskItemRows, TaskRows } from '@app/database';
import { describeUrl, STORAGE_SCHEME, StorageResolver } from '@app/storage';
import { editCaller, EditExecutor } from '../edit-executor';
import type { EditRequest } from '../edit-request.model';
import { TaskBodies } from './task-body';
import { TaskQueue } from './task-queue';
import { TaskScheduler } from './task-scheduler';
import { taskKind } from './kinds';
import type { BatchInput, TaskRequest } from './task-request';
import { failureMessage, isTransient } from './task-failure';
import { outputStoreOf } from '../results/result-writer';
import { OutputStoreBreaker, pauseReason } from './output-store-breaker';
import { RunClaims } from './run-claims';
import { RETRYING_SHOWN, taskView, type TaskView } from './task-view';
import { WebhookSender } from '../webhooks/webhook-sender';

/** Items recorded and queued together while a folder is listed. */
const CHUNK = 100;
/** Parsed requests of the tasks most recently run (a process works on few tasks at once). */
const PARSED_REQUESTS = 64;

const isFinal = (task: EditTaskEntity) => isFinalTaskStatus(task.status);

/**
/**
 * What a run of an item did: `ran` (it ran, or had nothing to do), or `deferred`: its task is PAUSED (its output
 * store is down), so the item did not run and the queue runs it again after TASK_STORE_PROBE_MS, as a new look
 * rather than a new attempt.
 */
export type ItemRun = 'ran' | 'deferred';

/**
 * How a listing stopped before the end of its input: the task was cancelled, the key's quota is spent, or the input
 * holds more than TASK_ITEMS_MAX images.
 */
type Stop = { kind: 'ended' } | { kind: 'quota' | 'items'; message: string };

/**
 * The work of a task, the same in both modes (BullMQ worker, or the API process in embedded mode): list the
 * input into items, edit each item with EditExecutor, end the task when every item is final, send its webhook.
 * Every step reads its state from the database first, so that running one twice (a retried job, a restart)
 * changes nothing: a final item is never edited again, and a task's status only moves forward.
 */
@Injectable()
export class TaskRunner {
  private readonly logger = new Logger(TaskRunner.name);
  /**
   * A task's request never changes once stored: parsed once per task, not again for each of its items. Keyed by
   * id and creation time, so that a task id used again (a database recreated under a running process) is not
   * mistaken for the old task.
   */
  private readonly requests = new LruCache<string, TaskRequest>(PARSED_REQUESTS);
  private readonly claims: RunClaims;

  constructor(
    @Inject(AppConfig) private readonly config: AppConfig,
    private readonly store: TaskRows,
    private readonly itemRows: TaskItemRows,
    private readonly keys: KeyRows,
    private readonly executor: EditExecutor,
    private readonly resolver: StorageResolver,
    private readonly queue: TaskQueue,
    private readonly webhooks: WebhookSender,
    private readonly scheduler: TaskScheduler,
    private readonly bodies: TaskBodies,
    private readonly breaker: OutputStoreBreaker,
  ) {
    this.claims = new RunClaims(store, itemRows, config.workerLockMs, this.logger);
  }

  /**
   * Lists the task's input into items, waiting in the database for the scheduler to queue them (TaskScheduler);
   * when that was done before (a restart, a retry), queues again the items that were queued and tops up. A
   * transient failure throws for a retry unless `finalAttempt`; any other ends the task in ERROR.
   */
  async expand(taskId: number, finalAttempt = true): Promise<void> {
    const task = await this.store.find(taskId);
    if (!task || isFinal(task)) return;
    await this.store.advance(taskId, 'PROCESSING');
    // Items queued before a restart: embedded mode lost them with the process (BullMQ ignores known job ids).
    await this.queue.addItems(taskId, await this.itemRows.queuedPending(taskId));
    if (!task.expanded) {
      let listed: { count: number; stop?: Stop };
      try {
        listed = await this.record(task, requestOf(task).input);
      } catch (error) {
        if (isTransient(error) && !finalAttempt) throw error;
        this.logger.warn(`task ${taskId}: its input cannot be listed: ${failureMessage(error)}`);
        return this.end(task, 'ERROR', failureMessage(error));
      }
      if (listed.stop?.kind === 'ended') return;
      if (listed.stop) await this.store.setPendingError(taskId, listed.stop.message);
      else if (listed.count === 0) {
        return this.end(task, 'ERROR', `${describe(requestOf(task).input)} holds no images.`);
      }
      await this.store.markExpanded(taskId);
    }
    await this.scheduler.topUp(task.accountId);
    await this.finishIfDone(taskId);
  }

  /**
   * Edits one item. A transient failure is recorded on the item (the task shows it as retrying) and thrown for a
   * retry unless `finalAttempt`; any other failure (or the last attempt's) records the item as FAILED. A write to
   * an output store that the breaker holds open (OutputStoreBreaker) pauses the task instead: the item stays
   * pending and is `deferred`, as is every item of a PAUSED task, which does not run until the task resumes.
   */
  async runItem(taskId: number, seq: number, finalAttempt = true): Promise<ItemRun> {
    const task = await this.store.find(taskId);
    if (!task || isFinal(task)) return 'ran';
    if (task.status === 'PAUSED') return 'deferred';
    const item = await this.claims.item(taskId, seq, finalAttempt);
    if (item === 'ended') await this.afterItem(task);
    if (item === null || item === 'ended') return 'ran';
    const { edit } = this.requestOf(task);
    const destination = edit.output.destination;
    const request: EditRequest = {
      ...edit,
      input: item.input,
      output: {
        ...edit.output,
        destination: taskKind(task.kind).itemDestination(destination, item.subPath),
      },
    };
    const started = performance.now();
    const ended = (status: 'DONE' | 'FAILED' | 'retry') => {
      taskItems.inc({ status });
      taskItemDuration.observe({ status }, (performance.now() - started) / 1000);
    };
    try {
      const result = await this.claims.holding(
        (until) => this.itemRows.renewItemClaim(item, until),
        () => this.executor.execute(editCaller(task.accountId), request),
      );
      await this.itemRows.finishItem(item.id, {
        status: 'DONE',
        input: result.input,
        output: result.output,
        ...(result.notices && { notices: result.notices }),
      });
      this.breaker.succeeded(task.id);
      ended('DONE');
    } catch (error) {
      const store = outputStoreOf(error);
      if (isTransient(error) && store !== undefined && this.breaker.failed(task.id, store)) {
        await this.itemRows.recordFailedAttempt(item.id, failureMessage(error));
        ended('retry');
        await this.pause(task, destination, failureMessage(error));
        return 'deferred';
      }
      if (isTransient(error) && !finalAttempt) {
        await this.itemRows.recordFailedAttempt(item.id, failureMessage(error));
        ended('retry');
        // While it waits for its retry the item holds no place in the queue (ScheduleRows.queuedCount).
        await this.scheduler.topUp(task.accountId);
        throw error;
      }
      this.logger.warn(`task ${taskId} item ${seq} (${describeUrl(item.input)}) failed: ${failureMessage(error)}`);
      await this.itemRows.finishItem(item.id, { status: 'FAILED', error: failureMessage(error) });
      ended('FAILED');
    }
    await this.afterItem(task);
    return 'ran';
  }

  /**
   * PROCESSING -> PAUSED (its output store fails): its places in the queue go to its account's other tasks at once
   * (a PAUSED task holds none: ScheduleRows' activeTasks), and PausedTaskProber resumes or ends it.
   */
  private async pause(task: EditTaskEntity, destination: string | undefined, failure: string): Promise<void> {
    const until = new Date(Date.now() + this.config.taskStorePauseMaxMs);
    if (!(await this.store.pause(task.id, pauseReason(destination, failure, until)))) return;
    this.logger.warn(`task ${task.id}: its output store fails; pausing the task: ${failure}`);
    await this.scheduler.topUp(task.accountId);
  }

  /**
   * Ends a task PAUSED for longer than TASK_STORE_PAUSE_MAX_MS (PausedTaskProber): its images not written fail
   * with `message`, and the task ends in ERROR (a listing still under way ends it when it is done).
   */
  async giveUpPaused(taskId: number, message: string): Promise<void> {
    const failed = await this.itemRows.failPending(taskId, message);
    taskItems.inc({ status: 'FAILED' }, failed);
    await this.finishIfDone(taskId);
  }

  /** After an item ends: the task may end, and the item's place in the queue goes to its account's next item. */
  private async afterItem(task: EditTaskEntity): Promise<void> {
    await this.finishIfDone(task.id);
    await this.scheduler.afterItem(task);
  }

  /**
   * Records work the queue gave up without running it to its end (every worker that ran it died: TaskWorker):
   * the item FAILED with `reason`, or, for the listing (`seq` undefined), the task ERROR. Else the item would stay
   * PENDING and its task PROCESSING for ever.
   */
  async abandon(taskId: number, seq: number | undefined, reason: string): Promise<void> {
    const task = await this.store.find(taskId);
    if (!task || isFinal(task)) return;
    if (seq === undefined) return this.end(task, 'ERROR', reason);
    const item = await this.itemRows.item(taskId, seq);
    if (item?.status === 'PENDING') {
      this.logger.warn(`task ${taskId} item ${seq} (${describeUrl(item.input)}) failed: ${reason}`);
      await this.itemRows.finishItem(item.id, { status: 'FAILED', error: reason });
      taskItems.inc({ status: 'FAILED' });
    }
    await this.finishIfDone(taskId);
  }

  /** Delivers the ended task to its webhook; throws for a retry unless `finalAttempt`, then gives up. */
  async deliverWebhook(taskId: number, finalAttempt = true): Promise<void> {
    const task = await this.store.find(taskId);
    if (!task?.webhookUrl || !isFinal(task) || !['pending', 'sending'].includes(task.webhookState)) return;
    if (!(await this.claims.webhook(task, finalAttempt))) return;
    const started = performance.now();
    const attempt = (outcome: 'delivered' | 'retry' | 'failed') => {
      webhookDeliveries.inc({ outcome });
      webhookDeliveryDuration.observe({ outcome }, (performance.now() - started) / 1000);
    };
    try {
      await this.claims.holding(
        (until) => this.store.renewWebhookClaim(taskId, until),
        () => this.webhooks.send(task, task.webhookUrl!, () => this.bodies.chunks(task)),
      );
      attempt('delivered');
      await this.store.setWebhookState(taskId, 'sent');
    } catch (error) {
      if (!finalAttempt && isTransient(error)) {
        attempt('retry');
        await this.store.setWebhookState(taskId, 'pending');
        throw error;
      }
      attempt('failed');
      this.logger.warn(
        `task ${taskId}: webhook ${describeUrl(task.webhookUrl)} not delivered: ${failureMessage(error)}`,
      );
      await this.store.setWebhookState(taskId, 'failed');
    }
  }

  async view(task: EditTaskEntity): Promise<TaskView> {
    const [items, counts, retrying] = await Promise.all([
      this.itemRows.finishedItems(task.id),
      this.itemRows.counts(task.id),
      this.itemRows.retrying(task.id, RETRYING_SHOWN),
    ]);
    return taskView(task, { items, counts, retrying }, this.config.publicBaseUrl);
  }

  /**
   * Records the input's items in chunks as the listing pages in, each charged to the key's quota first (a
   * folder's: a list's was charged when the task was created), and tops the account up after each; returns how
   * many, and why the listing stopped early, if it did: the task ended (cancelled), the quota is spent (the
   * items it covers are recorded, no other), or the input holds more than TASK_ITEMS_MAX images (the first
   * TASK_ITEMS_MAX are recorded).
   */
  private async record(task: EditTaskEntity, input: BatchInput): Promise<{ count: number; stop?: Stop }> {
    // Items an earlier run of this listing recorded were charged then (the listing order is fixed).
    const charged = input.kind === 'folder' ? (await this.itemRows.counts(task.id)).total : Number.POSITIVE_INFINITY;
    let seq = 0;
    let chunk: NewItem[] = [];
    const flush = async (): Promise<Stop | undefined> => {
      const current = await this.store.find(task.id);
      if (!current || isFinal(current)) return { kind: 'ended' };
      const covered = await this.charge(task, chunk.filter((item) => item.seq >= charged).length);
      const recorded = chunk.slice(0, chunk.filter((item) => item.seq < charged).length + covered);
      await this.itemRows.addItems(task.id, recorded);
      await this.scheduler.topUp(task.accountId);
      const short = chunk.length - recorded.length;
      chunk = [];
      if (short === 0) return undefined;
      const message =
        `The API key's call quota is spent (one call per image): the first ${seq - short} image(s) were queued, ` +
        'the rest of the input was not edited.';
      return { kind: 'quota', message };
    };
    const max = this.config.taskItemsMax;
    for await (const item of this.inputs(task.accountId, input)) {
      if (seq === max) {
        // Leaving the loop ends the listing: no page past this one is asked for.
        const stop = chunk.length > 0 ? await flush() : undefined;
        const message =
          `${describe(input)} holds more than ${max} images (TASK_ITEMS_MAX): the first ${max} were queued, ` +
          'the rest was not listed.';
        return { count: seq, stop: stop ?? { kind: 'items', message } };
      }
      chunk.push({ seq: seq++, ...item });
      if (chunk.length === CHUNK) {
        const stop = await flush();
        if (stop) return { count: seq, stop };
      }
    }
    const stop = chunk.length > 0 ? await flush() : undefined;
    return { count: seq, ...(stop && { stop }) };
  }

  /**
   * Charges `images` to the key that created the task (one call per image, as the hosted APIs count); returns
   * how many of them its quota covers (all when it has none), charged.
   */
  private async charge(task: EditTaskEntity, images: number): Promise<number> {
    if (images === 0 || task.keyId === null || (await this.keys.chargeCalls(task.keyId, images))) return images;
    const left = Math.min(images, (await this.keys.callsLeft(task.keyId)) ?? images);
    return left > 0 && (await this.keys.chargeCalls(task.keyId, left)) ? left : 0;
  }

  /** The images of a folder (by extension: the eight input types), or the listed files, in a fixed order. */
  private async *inputs(accountId: number, input: BatchInput): AsyncIterable<Omit<NewItem, 'seq'>> {
    if (input.kind === 'files') {
      for (const entry of input.inputs) yield { input: entry, subPath: '' };
      return;
    }
    const folder = await this.resolver.resolve(accountId, input.reference, 'input');
    const prefix = `${STORAGE_SCHEME}${folder.storage.name}/`;
    for await (const object of folder.driver.list(folder.path, { recursive: input.recursive })) {
      const name = object.path.split('/').pop() ?? '';
      if (!mediaTypeOfExtension(name.includes('.') ? name.split('.').pop()! : '')) continue;
      const below = object.path.slice(folder.path.length);
      const subPath = below.includes('/') ? below.slice(0, below.lastIndexOf('/') + 1) : '';
      yield { input: `${prefix}${object.path}`, subPath };
    }
  }

  /** Ends the task when it is listed and no item is pending: DONE, or ERROR when any item failed. */
  private async finishIfDone(taskId: number): Promise<void> {
    // Nearly every item ends with others still pending: one index lookup says so before the task and its counts
    // (a scan of all its items) are read. Items ending at once may all find none pending; end() moves only once.
    if (await this.itemRows.hasPending(taskId)) return;
    const task = await this.store.find(taskId);
    if (!task?.expanded || isFinal(task)) return;
    const counts = await this.itemRows.counts(taskId);
    if (counts.pending > 0) return;
    // A task-level error recorded while it ran (its quota spent) ends it in ERROR too.
    await this.end(task, counts.failed > 0 || task.error ? 'ERROR' : 'DONE');
  }

  private requestOf(task: EditTaskEntity): TaskRequest {
    const key = `${task.id}:${new Date(task.createdAt).getTime()}`;
    let request = this.requests.get(key);
    if (!request) {
      request = requestOf(task);
      this.requests.set(key, request);
    }
    return request;
  }

  private async end(task: EditTaskEntity, status: 'DONE' | 'ERROR', error?: string): Promise<void> {
    if (!(await this.store.advance(task.id, status, error))) return;
    if (task.webhookUrl) await this.queue.deliverWebhook(task.id);
  }
}

/** The stored request, parsed again (it was valid when the task was created); TaskRunner keeps it per task. */
export function requestOf(task: EditTaskEntity): TaskRequest {
  return taskKind(task.kind).parse(task.request);
}

function describe(input: BatchInput): string {
  return input.kind === 'folder' ? `The folder ${input.reference}` : 'The input';
}
