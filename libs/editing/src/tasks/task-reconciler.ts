import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { AppConfig, taskReconciled, type ReconciledWork } from '@app/common';
import { type EditTaskEntity, ScheduleRows, TaskItemRows } from '@app/database';
import { failureMessage } from './task-failure';
import { DurableTaskQueue, taskJobId } from './task-queue';
import { TaskScheduler } from './task-scheduler';

/** Tasks read per keyset page. */
const PAGE = 100;
/** Tasks looked at per pass, of each kind (running, ended with a webhook to send): a pass costs little however big the database. */
const PASS_TASKS = 500;
/** Ended tasks whose webhook is sent again: those that ended within this long (7 days, as long as a failed job is kept). */
const WEBHOOK_WINDOW_MS = 7 * 86_400_000;
/** Passes after which a job found missing and not found missing again is forgotten. */
const FORGET_PASSES = 10;
/** Tasks in a row whose visit failed that end a pass (Redis or the database is gone: the next pass tries again). */
const FAILURES_IN_A_ROW = 3;
/** Longest wait at shutdown for a pass under way. */
const SHUTDOWN_WAIT_MS = 5_000;
/** The lease (beside the queue's keys) that lets one process of all a pass per interval. */
const LEASE = 'reconcile-lease';

type Running = Pick<EditTaskEntity, 'id' | 'accountId' | 'status' | 'expanded'>;

/**
 * Queues again the task work that Redis lost (flushed, or restarted without persistence; docs/operations.md,
 * "Backups"): in scaled mode a task's state is in the database and its work in BullMQ, and nothing else would
 * notice the jobs are gone. Every TASK_RECONCILE_INTERVAL_MS, one worker of all (a Redis lease) compares the two
 * for the tasks that are at least one interval old (younger ones may be being queued right now):
 * - a task not listed to its end whose listing job is gone: the listing starts again (TaskQueue.start), which
 *   also queues again its items that were in the queue and tops its account up;
 * - items handed to the queue (PENDING, `queued`) whose job is gone: their jobs are added again, as an embedded
 *   restart does, so the task keeps its places in the queue;
 * - a task whose items all ended but which did not end, with no listing job: the listing step ends it;
 * - a task with items waiting and none in the queue: its account is topped up;
 * - an ended task whose webhook was never delivered and has no webhook job: the webhook is queued again.
 * Whatever it adds has the work's own deterministic job id, and every step reads the database before acting, so
 * a pass that races a worker, the scheduler or another pass at worst adds a job that runs and finds nothing to do.
 *
 * Work that was running when Redis lost its data has no job either, until it ends. So work is queued again only
 * when an earlier pass of this process (at least one interval before) found its job missing too, and, for a
 * listing, its task has recorded no item since: an item or a webhook under way ends within the interval, a
 * listing under way records its items, and neither is then run a second time beside itself. An item or a webhook
 * that runs longer is not either: its run claims it first and holds the claim while it runs (TaskItemRows.startItem,
 * claimWebhook); the interval is at least FETCH_TIMEOUT_MS + WORKER_LOCK_MS (docs/operations.md, "Backups").
 */
@Injectable()
export class TaskReconciler implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(TaskReconciler.name);
  private timer?: NodeJS.Timeout;
  private pass?: Promise<void>;
  /** Where this process's next pass goes on (task ids), so that every task is reached when there are many. */
  private readonly cursors = { running: 0, webhooks: 0 };
  /** This process's passes so far. */
  private passes = 0;
  /** Jobs found missing, by id: at which pass first, and (a listing) how many items its task had then. */
  private readonly missing = new Map<string, { pass: number; items?: number }>();
  /** Tasks in a row whose visit failed. */
  private failures = 0;
  /** Ends a pass under way at shutdown. */
  private readonly stopping = new AbortController();

  constructor(
    @Inject(AppConfig) private readonly config: AppConfig,
    private readonly queue: DurableTaskQueue,
    private readonly itemRows: TaskItemRows,
    private readonly schedule: ScheduleRows,
    private readonly scheduler: TaskScheduler,
  ) {}

  onApplicationBootstrap(): void {
    const interval = this.config.taskReconcileIntervalMs;
    if (interval === 0) return;
    this.timer = setInterval(() => {
      this.pass ??= this.leasedPass(interval).finally(() => (this.pass = undefined));
    }, interval);
    this.timer.unref();
  }

  /**
   * Stops the passes: one under way stops after the task it is at, before the database and the queue are closed;
   * at most SHUTDOWN_WAIT_MS is waited for it (a Redis that does not answer would hold it for ever).
   */
  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    this.stopping.abort();
    if (!this.pass) return;
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, SHUTDOWN_WAIT_MS)));
    await Promise.race([this.pass, waited]);
    clearTimeout(timer);
  }

  /** A pass, unless another process did one within the interval. Its failure is logged; the next pass tries again. */
  private async leasedPass(interval: number): Promise<void> {
    try {
      // A little under the interval: this process's next tick finds it free even when its timer fires early.
      if (!(await this.queue.lease(LEASE, Math.max(1, Math.floor(interval * 0.9))))) return;
      await this.reconcile(new Date(Date.now() - interval));
    } catch (error) {
      this.logger.warn(`reconciling tasks with the queue failed: ${failureMessage(error)}`);
    }
  }

  /** One pass over the tasks that existed (or ended) before `before`. */
  async reconcile(before: Date): Promise<void> {
    this.passes += 1;
    const topUps = new Set<number>();
    await this.walk(
      'running',
      (after, limit) => this.schedule.unfinishedPage(after, before, limit),
      (task) => this.running(task, before, topUps),
    );
    for (const accountId of topUps) await this.scheduler.topUp(accountId);
    const since = new Date(Date.now() - WEBHOOK_WINDOW_MS);
    await this.walk(
      'webhooks',
      (after, limit) => this.schedule.webhooksPendingPage(after, since, before, limit),
      (task) => this.webhook(task.id),
    );
    // what was not found missing again for a while has ended, come back, or is in a part of the walk further on
    for (const [jobId, seen] of this.missing) if (seen.pass < this.passes - FORGET_PASSES) this.missing.delete(jobId);
  }

  /** Up to PASS_TASKS tasks from the cursor on, a page at a time; the cursor starts over once the end is reached. */
  private async walk<T extends { id: number }>(
    cursor: keyof TaskReconciler['cursors'],
    page: (afterId: number, limit: number) => Promise<T[]>,
    visit: (task: T) => Promise<void>,
  ): Promise<void> {
    for (let seen = 0; seen < PASS_TASKS;) {
      const limit = Math.min(PAGE, PASS_TASKS - seen);
      const tasks = await page(this.cursors[cursor], limit);
      for (const task of tasks) {
        if (this.stopping.signal.aborted) return;
        await this.visit(task.id, () => visit(task));
      }
      seen += tasks.length;
      this.cursors[cursor] = tasks.length < limit ? 0 : tasks[tasks.length - 1].id;
      if (tasks.length < limit) return;
    }
  }

  /**
   * One task's visit: a failure is logged and the walk goes on to the next task, so that a task that cannot be
   * reconciled does not hold up those after it; a few failures in a row (Redis or the database gone) end the pass.
   */
  private async visit(taskId: number, work: () => Promise<void>): Promise<void> {
    try {
      await work();
      this.failures = 0;
    } catch (error) {
      this.failures += 1;
      if (this.failures >= FAILURES_IN_A_ROW) {
        this.failures = 0;
        throw error;
      }
      this.logger.warn(`task ${taskId}: reconciling it with the queue failed: ${failureMessage(error)}`);
    }
  }

  /**
   * Whether a job is lost: missing now, and missing at an earlier pass of this process (with, for a listing, the
   * same number of items recorded then). A job found missing for the first time is remembered, not yet lost.
   */
  private async lost(jobId: string, items?: number): Promise<boolean> {
    if (!(await this.queue.lacks(jobId))) {
      this.missing.delete(jobId);
      return false;
    }
    const seen = this.missing.get(jobId);
    if (seen && seen.pass < this.passes && seen.items === items) {
      this.missing.delete(jobId);
      return true;
    }
    if (!seen || seen.items !== items) this.missing.set(jobId, { pass: this.passes, items });
    return false;
  }

  /** A task that has not ended: its listing, its items in the queue, its end, its turn in the queue. */
  private async running(task: Running, before: Date, topUps: Set<number>): Promise<void> {
    const items = task.expanded ? undefined : (await this.itemRows.counts(task.id)).total;
    const listingLost = await this.lost(taskJobId.expand(task.id), items);
    if (listingLost && !task.expanded) {
      // The listing records nothing twice, queues again the items that were queued, and tops the account up.
      await this.queue.start(task.id);
      return this.recovered(task.id, { expand: 1 });
    }
    const queued = await this.itemRows.queuedPending(task.id);
    const lost: number[] = [];
    for (const seq of queued) if (await this.lost(taskJobId.item(task.id, seq))) lost.push(seq);
    if (lost.length > 0) {
      await this.queue.addItems(task.id, lost);
      this.recovered(task.id, { item: lost.length });
    }
    if (queued.length > 0) return;
    if (await this.itemRows.hasPending(task.id)) topUps.add(task.accountId);
    else if (listingLost && !(await this.schedule.itemEndedSince(task.id, before))) {
      // Every item ended a while ago but the task did not (the job that should have ended it was lost): the listing
      // step ends it. An item that ended within the interval may be being followed by its task's end right now.
      await this.queue.start(task.id);
      this.recovered(task.id, { expand: 1 });
    }
  }

  private async webhook(taskId: number): Promise<void> {
    if (!(await this.lost(taskJobId.webhook(taskId)))) return;
    await this.queue.deliverWebhook(taskId);
    this.recovered(taskId, { webhook: 1 });
  }

  /** Counts and logs what was queued again for a task (ids only: never its URLs). */
  private recovered(taskId: number, work: Partial<Record<ReconciledWork, number>>): void {
    const parts: string[] = [];
    for (const [what, count] of Object.entries(work) as [ReconciledWork, number][]) {
      taskReconciled.inc({ what }, count);
      parts.push(what === 'item' ? `${count} item(s)` : what === 'expand' ? 'its listing' : 'its webhook');
    }
    this.logger.warn(`task ${taskId}: the queue had lost its work; queued again: ${parts.join(', ')}`);
  }
}
