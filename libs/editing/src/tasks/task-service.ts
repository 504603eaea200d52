import { Inject, Injectable, Logger } from '@nestjs/common';
import { AppConfig, quotaRefusals, ServiceException, tasksCreated } from '@app/common';
import {
  type EditTaskEntity,
  isFinalTaskStatus,
  KeyRows,
  TaskItemRows,
  TaskRows,
  type TaskStatus,
} from '@app/database';
import {
  AddressPolicy,
  describeUrl,
  isStorageReference,
  parseStorageReference,
  requireCapability,
  StorageResolver,
} from '@app/storage';
import { ResultWriter } from '../results/result-writer';
import { TaskQueue } from './task-queue';
import type { TaskKind } from './kinds';
import type { TaskRequest } from './task-request';
import { TaskRunner } from './task-runner';
import { TaskScheduler } from './task-scheduler';
import {
  errorOf,
  resultOf,
  taskLevelError,
  taskSummary,
  type TaskError,
  type TaskResult,
  type TaskSummary,
  type TaskView,
} from './task-view';

/** The Retry-After of ACTIVE_TASKS_LIMITED, in seconds: tasks end at their own pace, so a fixed hint. */
const ACTIVE_TASKS_RETRY_AFTER_S = 30;

/** One page of a listing: `page` from 1, `per_page` entries at most, `total` in all. */
export interface Page<T> {
  items: T[];
  page: number;
  per_page: number;
  total: number;
}

/** Who creates a task: its account, and the key (null for ADMIN_API_KEY) that is charged and may be revoked. */
export interface TaskOwner {
  accountId: number;
  keyId: number | null;
}

/** A failed task item, as GET /v1/usage lists the account's recent ones. */
export interface RecentFailure {
  task_id: number;
  input: string;
  error: string;
  created_at: string;
}

/**
 * Creates and shows tasks for the API. A request is refused (422) before a task exists when it breaks the
 * schema or names a storage the caller does not have, or one that cannot serve it (a web folder cannot be
 * listed or written), or a `webhook_url` the address policy refuses; what needs the storage's contents (a missing
 * folder, a bad image) ends the task in ERROR.
 */
@Injectable()
export class TaskService {
  private readonly logger = new Logger(TaskService.name);

  constructor(
    @Inject(AppConfig) private readonly config: AppConfig,
    private readonly store: TaskRows,
    private readonly itemRows: TaskItemRows,
    private readonly keys: KeyRows,
    private readonly runner: TaskRunner,
    private readonly queue: TaskQueue,
    private readonly resolver: StorageResolver,
    private readonly policy: AddressPolicy,
    private readonly scheduler: TaskScheduler,
    private readonly results: ResultWriter,
  ) {}

  /**
   * Creates a task once its request is judged valid, charging the key one call per image (a list's now, all or
   * nothing: 402 and no task when its calls left cannot cover them; a folder's as it is listed, TaskRunner).
   */
  async create(owner: TaskOwner, kind: TaskKind, body: unknown): Promise<TaskView> {
    const request = kind.parse(body);
    await this.checkActiveTasks(owner.accountId);
    await this.checkStorages(owner.accountId, request);
    if (request.webhookUrl !== undefined) await this.checkWebhook(request.webhookUrl);
    // A list's length is known now, so the first answer shows the total; a folder's is counted as it is listed.
    const itemTotal = request.input.kind === 'files' ? request.input.inputs.length : null;
    const charged = await this.chargeList(owner.keyId, itemTotal);
    let task: EditTaskEntity;
    try {
      task = await this.store.create(owner, kind.name, body as Record<string, unknown>, request.webhookUrl, itemTotal);
    } catch (error) {
      if (charged > 0) await this.keys.chargeCalls(owner.keyId!, -charged);
      throw error;
    }
    await this.queue.start(task.id);
    tasksCreated.inc({ kind: kind.name });
    return this.runner.view(task);
  }

  /**
   * Cancels a task of the account that has not ended (docs/batch.md, "Cancellation"): 404 when the account has
   * no such task (`kind` undefined: of either kind), 409 when it has ended.
   */
  async cancel(accountId: number, kind: TaskKind | undefined, id: number): Promise<void> {
    const task = kind
      ? await this.store.findOwned(accountId, id, kind.name)
      : await this.store.findOwnedAnyKind(accountId, id);
    if (!task) throw new ServiceException('TASK_NOT_FOUND');
    if (isFinalTaskStatus(task.status) || !(await this.scheduler.cancel(task))) {
      throw new ServiceException('TASK_ENDED');
    }
  }

  /** Cancels every task of a revoked key that has not ended; returns how many. */
  async cancelOfKey(keyId: number): Promise<number> {
    return this.scheduler.cancelAll(await this.store.activeTasksOfKey(keyId));
  }

  /**
   * Refuses a task beyond TASK_ACTIVE_PER_ACCOUNT tasks of the account that have not ended (429, wrapped as every
   * 429 is). Read before the task is created: requests at the same moment may each pass it, by their number only.
   */
  private async checkActiveTasks(accountId: number): Promise<void> {
    const limit = this.config.taskActivePerAccount;
    if ((await this.store.activeCount(accountId)) < limit) return;
    throw new ServiceException(
      'ACTIVE_TASKS_LIMITED',
      `The account has ${limit} tasks that have not ended (TASK_ACTIVE_PER_ACCOUNT); retry once some have ended, ` +
        'or cancel some.',
      {},
      { 'retry-after': String(ACTIVE_TASKS_RETRY_AFTER_S) },
    );
  }

  /**
   * Charges a list's images to the key (one call each) before its task exists; returns the calls charged. A folder
   * (`images` null) is charged as it is listed, but a key with no call left is refused now.
   */
  private async chargeList(keyId: number | null, images: number | null): Promise<number> {
    if (keyId === null) return 0;
    if (images === null) {
      if ((await this.keys.callsLeft(keyId)) !== 0) return 0;
      quotaRefusals.inc();
      throw new ServiceException('QUOTA_EXHAUSTED');
    }
    if (!(await this.keys.chargeCalls(keyId, images))) {
      quotaRefusals.inc();
      throw new ServiceException(
        'QUOTA_EXHAUSTED',
        `The key has fewer calls left than the ${images} image(s) of this request (one call per image).`,
      );
    }
    return images;
  }

  /** The account's tasks, newest first, one page of them (`page` from 1). */
  async list(
    accountId: number,
    filter: { status?: TaskStatus; kind?: string },
    page: number,
    perPage: number,
  ): Promise<Page<TaskSummary>> {
    const { tasks, total } = await this.store.listOwned(accountId, filter, (page - 1) * perPage, perPage);
    const counts = await this.itemRows.countsOf(tasks.map((task) => task.id));
    const items = tasks.map((task) => taskSummary(task, counts.get(task.id)!, this.config.publicBaseUrl));
    return { items, page, per_page: perPage, total };
  }

  /** One task of either kind as the listing shows it: status and progress, without its items (cheap to poll). */
  async summary(accountId: number, id: number): Promise<TaskSummary> {
    const task = await this.store.findOwnedAnyKind(accountId, id);
    if (!task) throw new ServiceException('TASK_NOT_FOUND');
    const counts = await this.itemRows.countsOf([task.id]);
    return taskSummary(task, counts.get(task.id)!, this.config.publicBaseUrl);
  }

  /**
   * One page of a task's results (`DONE` items) or errors (`FAILED` items; a task-level error first, as in the
   * task's own `errors`), so that a task of thousands of items can be read piece by piece.
   */
  async itemsPage(
    accountId: number,
    id: number,
    which: 'results' | 'errors',
    page: number,
    perPage: number,
  ): Promise<Page<TaskResult> | Page<TaskError>> {
    const task = await this.store.findOwnedAnyKind(accountId, id);
    if (!task) throw new ServiceException('TASK_NOT_FOUND');
    if (which === 'results') {
      const { items, total } = await this.itemRows.finishedPage(id, 'DONE', (page - 1) * perPage, perPage);
      return { items: items.map(resultOf), page, per_page: perPage, total };
    }
    // the task-level error, when there is one, is the first entry of the whole list
    const head = taskLevelError(task);
    const shift = head ? 1 : 0;
    const offset = (page - 1) * perPage;
    const first = Math.max(0, offset - shift);
    const take = perPage - (head && offset === 0 ? 1 : 0);
    const { items, total } = await this.itemRows.finishedPage(id, 'FAILED', first, Math.max(0, take));
    const errors = items.map((item) => errorOf(item, task));
    return { items: head && offset === 0 ? [head, ...errors] : errors, page, per_page: perPage, total: total + shift };
  }

  /**
   * The account's last failed items, newest first (GET /v1/usage); with `keyId`, only those of that key's tasks.
   * Inputs are described as in logs (describeUrl: no query strings, no token-like path segments): the list may
   * be read by another key than the one that sent them.
   */
  async recentFailures(accountId: number, limit: number, keyId?: number): Promise<RecentFailure[]> {
    const items = await this.itemRows.recentFailures(accountId, limit, keyId);
    return items.map((item) => ({
      task_id: item.taskId,
      input: describeUrl(item.input),
      error: item.error ?? 'failed',
      created_at: (item.finishedAt ?? new Date(0)).toISOString(),
    }));
  }

  /**
   * Judges the webhook's address now (its name resolved, every answer checked), so that one the policy refuses is
   * a 422 rather than a task that can never report; delivery judges it again, as DNS may change meanwhile. A name
   * that does not resolve now, or not within FETCH_CONNECT_TIMEOUT_MS, is left to delivery, which retries.
   */
  private async checkWebhook(url: string): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const slow = new Promise<'slow'>(
      (resolve) => (timer = setTimeout(() => resolve('slow'), this.config.fetchConnectTimeoutMs)),
    );
    const judged = this.policy.resolve(new URL(url));
    // An answer that comes after the timeout is not awaited by anyone.
    judged.catch(() => undefined);
    try {
      await Promise.race([judged, slow]);
    } catch (error) {
      if (error instanceof ServiceException && error.codeName === 'FETCH_REFUSED') {
        throw new ServiceException('WEBHOOK_URL_REFUSED', error.message, { webhook_url: [error.message] });
      }
      const code = (error as NodeJS.ErrnoException).code ?? String(error);
      this.logger.log(`webhook ${describeUrl(url)} does not resolve now (${code}); delivery will check it again`);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Every storage the request names exists in the account and can do what the task needs of it. */
  private async checkStorages(accountId: number, request: TaskRequest): Promise<void> {
    const { input } = request;
    if (input.kind === 'folder') {
      const field = 'input';
      const folder = await this.resolver.resolve(accountId, input.reference, field);
      // the code the driver's list() answers with, told before the task exists
      requireCapability(folder.storage.type, 'list', field);
    } else {
      const seen = new Set<string>();
      for (const [index, entry] of input.inputs.entries()) {
        const parsed = isStorageReference(entry) ? parseStorageReference(entry) : undefined;
        if (!parsed || 'error' in parsed || seen.has(parsed.name)) continue;
        seen.add(parsed.name);
        await this.resolver.resolve(accountId, entry, input.inputs.length === 1 ? 'input' : `input.${index}`);
      }
    }
    // the one destination rule of edits, scenes and tasks (a writable storage of the account; one error code each)
    const { destination, format } = request.edit.output;
    await this.results.destination(accountId, destination, format?.type);
  }
}
