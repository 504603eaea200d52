import { Inject, Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '@app/common';
import { type EditTaskEntity, type LockedSchedule, ScheduleRows, TaskRows } from '@app/database';
import { TaskQueue } from './task-queue';

type CancelledTask = Pick<EditTaskEntity, 'id' | 'accountId' | 'webhookUrl'>;

/**
 * Fair sharing of the queue between accounts (docs/batch.md, "Scheduling"). A task's items wait in the database
 * (PENDING, not queued); a top-up hands the queue at most TASK_OUTSTANDING_PER_TASK items of each task and
 * TASK_OUTSTANDING_PER_ACCOUNT of each account at a time, oldest task first. Every item that ends tops its
 * account up again, so an account with a huge batch holds only a bounded share of the queue, and the first items
 * of an account that comes later are near its head.
 *
 * Race safety: items are handed over by a conditional UPDATE (ScheduleRows' claim), so none is queued twice, and a
 * job id is the item's (an item already in BullMQ is not added again). Top-ups of one account run one at a time:
 * in a process by a chain of promises, and across processes (PostgreSQL) under a row lock on the account
 * (ScheduleRows.underAccountLock), so that the counts they read are not stale.
 */
@Injectable()
export class TaskScheduler {
  private readonly logger = new Logger(TaskScheduler.name);
  /** The last top-up of each account in this process: the next one waits for it. */
  private readonly chains = new Map<number, Promise<void>>();

  constructor(
    @Inject(AppConfig) private readonly config: AppConfig,
    private readonly store: TaskRows,
    private readonly schedule: ScheduleRows,
    private readonly queue: TaskQueue,
  ) {}

  /** Hands the queue what the account's limits allow of its tasks' waiting items. */
  topUp(accountId: number): Promise<void> {
    const previous = this.chains.get(accountId) ?? Promise.resolve();
    const next = previous.then(() => this.topUpNow(accountId));
    const tail = next.catch(() => undefined);
    this.chains.set(accountId, tail);
    void tail.then(() => {
      if (this.chains.get(accountId) === tail) this.chains.delete(accountId);
    });
    return next;
  }

  /**
   * After an item of `task` ended: tops its account up, unless the task still has at least half its places
   * (TASK_OUTSTANDING_PER_TASK / 2) in the queue. Their ends top up soon enough, and most items are spared the
   * top-up's transaction (a lookup of a few index rows instead). A task that ended has none left: its account's
   * other tasks get its places at once.
   */
  async afterItem(task: Pick<EditTaskEntity, 'id' | 'accountId'>): Promise<void> {
    const lowWater = Math.floor(this.config.taskOutstandingPerTask / 2);
    if (lowWater > 0 && (await this.schedule.queuedCount(task.id)) >= lowWater) return;
    await this.topUp(task.accountId);
  }

  /**
   * Cancels a task that has not ended: it becomes CANCELLED (false when it had ended already), its items not
   * started never run (TaskRunner checks the task first), its webhook is sent, and its account's other tasks take
   * its share of the queue.
   */
  async cancel(task: CancelledTask): Promise<boolean> {
    if (!(await this.end(task))) return false;
    await this.topUp(task.accountId);
    return true;
  }

  /**
   * Cancels several tasks of one account (a revoked key's): each as {@link cancel} does, and one top-up of the
   * account after them all, not one per task. Returns how many were cancelled (had not ended).
   */
  async cancelAll(tasks: CancelledTask[]): Promise<number> {
    let cancelled = 0;
    for (const task of tasks) if (await this.end(task)) cancelled += 1;
    for (const accountId of new Set(tasks.map((task) => task.accountId))) await this.topUp(accountId);
    return cancelled;
  }

  private async end(task: CancelledTask): Promise<boolean> {
    if (!(await this.store.advance(task.id, 'CANCELLED'))) return false;
    if (task.webhookUrl) await this.queue.deliverWebhook(task.id);
    return true;
  }

  private async topUpNow(accountId: number): Promise<void> {
    const revoked = await this.schedule.underAccountLock(accountId, (locked) => this.handOver(accountId, locked));
    if (revoked.length === 0) return;
    // A key revoked where no task service runs (the keys CLI): its tasks end here, and their share goes to the rest.
    for (const id of revoked) {
      this.logger.log(`task ${id}: the key that created it was revoked; cancelling it`);
      const task = await this.store.find(id);
      if (task) await this.end(task);
    }
    await this.topUpNow(accountId);
  }

  /**
   * Marks the items to queue now and queues them; returns the tasks whose key was revoked. In PostgreSQL the jobs
   * are added before the marks are committed: a process killed in between leaves jobs whose items are not marked
   * (harmless: a run reads the item, and a later hand-over of it adds a known job id), never marked items without
   * a job, which would hold their task's places for good.
   */
  private async handOver(accountId: number, locked: LockedSchedule): Promise<number[]> {
    const perTask = this.config.taskOutstandingPerTask;
    const tasks = await locked.activeTasks(accountId, perTask);
    const revoked = tasks.filter((task) => task.keyRevoked).map((task) => task.id);
    const live = tasks.filter((task) => !task.keyRevoked);
    let room = this.config.taskOutstandingPerAccount - live.reduce((sum, task) => sum + task.queued, 0);
    const wanted = new Map<number, number>();
    for (const task of live) {
      if (room <= 0) break;
      const count = Math.min(room, task.waiting, perTask - task.queued);
      if (count <= 0) continue;
      wanted.set(task.id, count);
      room -= count;
    }
    const queued = await locked.claim(wanted);
    for (const [taskId, seqs] of queued) await this.queue.addItems(taskId, seqs);
    return revoked;
  }
}
