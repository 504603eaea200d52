import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { AppConfig, taskReconciled, type ReconciledWork } from '@app/common';
import type { EditTaskEntity } from '@app/database';
import { BullMqTaskQueue } from './bullmq-task-queue';
import { failureMessage } from './task-failure';
import { taskJobId } from './task-queue';
import { ScheduleStore } from './schedule-store';
import { TaskScheduler } from './task-scheduler';
import { TaskStore } from './task-store';

/** Tasks read per keyset page. */
const PAGE = 100;
/** Tasks looked at per pass, of each kind (running, ended with a webhook to send): a pass costs little however big the database. */
const PASS_TASKS = 500;
/** Ended tasks whose webhook is sent again: those that ended within this long (7 days, as long as a failed job is kept). */
const WEBHOOK_WINDOW_MS = 7 * 86_400_000;
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
 */
@Injectable()
export class TaskReconciler implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(TaskReconciler.name);
  private timer?: NodeJS.Timeout;
  private pass?: Promise<void>;
  /** Where this process's next pass goes on (task ids), so that every task is reached when there are many. */
  private readonly cursors = { running: 0, webhooks: 0 };

  constructor(
    @Inject(AppConfig) private readonly config: AppConfig,
    private readonly queue: BullMqTaskQueue,
    private readonly store: TaskStore,
    private readonly schedule: ScheduleStore,
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

  /** Stops the passes; one under way finishes first, before the database and the queue are closed. */
  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.pass;
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
      for (const task of tasks) await visit(task);
      seen += tasks.length;
      this.cursors[cursor] = tasks.length < limit ? 0 : tasks[tasks.length - 1].id;
      if (tasks.length < limit) return;
    }
  }

  /** A task that has not ended: its listing, its items in the queue, its end, its turn in the queue. */
  private async running(task: Running, before: Date, topUps: Set<number>): Promise<void> {
    const listingLost = await this.queue.lacks(taskJobId.expand(task.id));
    if (listingLost && !task.expanded) {
      // The listing records nothing twice, queues again the items that were queued, and tops the account up.
      await this.queue.start(task.id);
      return this.recovered(task.id, { expand: 1 });
    }
    const queued = await this.store.queuedPending(task.id);
    const lost: number[] = [];
    for (const seq of queued) if (await this.queue.lacks(taskJobId.item(task.id, seq))) lost.push(seq);
    if (lost.length > 0) {
      await this.queue.addItems(task.id, lost);
      this.recovered(task.id, { item: lost.length });
    }
    if (queued.length > 0) return;
    if (await this.store.hasPending(task.id)) topUps.add(task.accountId);
    else if (listingLost && !(await this.schedule.itemEndedSince(task.id, before))) {
      // Every item ended a while ago but the task did not (the job that should have ended it was lost): the listing
      // step ends it. An item that ended within the interval may be being followed by its task's end right now.
      await this.queue.start(task.id);
      this.recovered(task.id, { expand: 1 });
    }
  }

  private async webhook(taskId: number): Promise<void> {
    if (!(await this.queue.lacks(taskJobId.webhook(taskId)))) return;
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
