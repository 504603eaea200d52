import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, Repository, type EntityManager } from 'typeorm';
import { ApiKeyEntity, EditTaskEntity, EditTaskItemEntity, FINAL_TASK_STATUSES } from '@app/database';
import { ACTIVE_TASK_STATUSES, SCHEDULED_TASK_STATUSES } from './task-store';

/** A task's pending items: handed to the queue, or waiting in the database for their turn. */
export interface PendingItems {
  queued: number;
  waiting: number;
}

/** A task that has not ended, as the scheduler sees it: whether the key that created it was revoked since. */
export interface ActiveTask {
  id: number;
  keyRevoked: boolean;
}

/**
 * The scheduler's reads and claims (TaskScheduler, docs/batch.md "Scheduling"): an account's running tasks, each
 * task's items in the queue and waiting, and the conditional hand-over of items to the queue. Each takes the
 * scheduler's transaction (`manager`) when it holds one. Also the reconciler's keyset pages of the tasks whose work
 * should be in the queue (TaskReconciler).
 */
@Injectable()
export class ScheduleStore {
  constructor(
    @InjectRepository(EditTaskEntity) private readonly tasks: Repository<EditTaskEntity>,
    @InjectRepository(EditTaskItemEntity) private readonly items: Repository<EditTaskItemEntity>,
  ) {}

  /**
   * The account's tasks that have not ended, oldest first (the order their items are queued in), each with
   * whether its key was revoked. `manager`: the scheduler's transaction, when it holds one.
   */
  async activeTasks(accountId: number, manager?: EntityManager): Promise<ActiveTask[]> {
    const rows: { id: number | string; revoked: boolean | number | null }[] = await (manager ?? this.tasks.manager)
      .createQueryBuilder(EditTaskEntity, 'task')
      .leftJoin(ApiKeyEntity, 'key', 'key.id = task.key_id')
      .select('task.id', 'id')
      .addSelect('key.revoked', 'revoked')
      .where('task.account_id = :accountId AND task.status IN (:...active)', {
        accountId,
        active: SCHEDULED_TASK_STATUSES,
      })
      .orderBy('task.id', 'ASC')
      .getRawMany();
    return rows.map((row) => ({ id: Number(row.id), keyRevoked: Boolean(row.revoked) }));
  }

  /**
   * Each task's pending items: how many are in the queue, and how many wait (counted up to `cap`, all a top-up can
   * use). Both are index ranges (IDX_edit_task_items_task_queue) of at most a few rows, so a top-up costs the same
   * at the first item of a 50,000-item task as at its last.
   */
  async pendingByTask(taskIds: number[], cap: number, manager?: EntityManager): Promise<Map<number, PendingItems>> {
    const pending = new Map<number, PendingItems>();
    for (const taskId of taskIds) {
      pending.set(taskId, {
        queued: await this.queuedCount(taskId, manager),
        waiting: (await this.waitingItems(taskId, cap, manager)).length,
      });
    }
    return pending;
  }

  /**
   * How many of the task's pending items hold a place in the queue (at most TASK_OUTSTANDING_PER_TASK, an index
   * range): those queued, less those whose last run failed and that wait for their retry (`error` set), which hold
   * none (docs/batch.md, "Retries"), so that a failing item does not keep its account's other work waiting.
   */
  queuedCount(taskId: number, manager?: EntityManager): Promise<number> {
    const items = (manager ?? this.items.manager).getRepository(EditTaskItemEntity);
    return items.countBy({ taskId, status: 'PENDING', queued: true, error: IsNull() });
  }

  /** Up to `limit` of the task's pending items not queued yet, in order. */
  private waitingItems(taskId: number, limit: number, manager?: EntityManager): Promise<EditTaskItemEntity[]> {
    const items = (manager ?? this.items.manager).getRepository(EditTaskItemEntity);
    return items.find({
      select: { id: true, seq: true },
      where: { taskId, status: 'PENDING', queued: false },
      order: { seq: 'ASC' },
      take: limit,
    });
  }

  /**
   * Marks up to `limit` of the task's pending items that are not queued yet as queued, in order, and returns the
   * seqs this call marked: each is one conditional UPDATE, so that two processes never both hand one item over.
   */
  async claim(taskId: number, limit: number, manager?: EntityManager): Promise<number[]> {
    if (limit <= 0) return [];
    const items = (manager ?? this.items.manager).getRepository(EditTaskItemEntity);
    const candidates = await this.waitingItems(taskId, limit, manager);
    const claimed: number[] = [];
    for (const item of candidates) {
      const result = await items.update({ id: item.id, queued: false }, { queued: true });
      if ((result.affected ?? 0) > 0) claimed.push(item.seq);
    }
    return claimed;
  }

  /**
   * Up to `limit` tasks that have not ended, created before `before`, with ids above `afterId`, in id order: a keyset
   * page (IDX_edit_tasks_status), so that walking all of them costs the same at the last page as at the first.
   */
  unfinishedPage(afterId: number, before: Date, limit: number): Promise<EditTaskEntity[]> {
    return this.tasks
      .createQueryBuilder('task')
      .select(['task.id', 'task.accountId', 'task.status', 'task.expanded'])
      .where('task.status IN (:...active) AND task.id > :afterId AND task.created_at < :before', {
        active: ACTIVE_TASK_STATUSES,
        afterId,
        before,
      })
      .orderBy('task.id', 'ASC')
      .limit(limit)
      .getMany();
  }

  /**
   * Up to `limit` ended tasks whose webhook is still to be delivered, ended between `since` and `before`, with ids
   * above `afterId`, in id order. The state is written into the statement, not bound, so that PostgreSQL can use the
   * partial index IDX_edit_tasks_webhook_pending: the tasks with a webhook that have not ended (their state is
   * `pending` from the start) and the ended ones whose webhook waits, so its size follows the running tasks, not the
   * history.
   */
  webhooksPendingPage(afterId: number, since: Date, before: Date, limit: number): Promise<EditTaskEntity[]> {
    return this.tasks
      .createQueryBuilder('task')
      .select(['task.id', 'task.accountId'])
      .where("task.webhook_state = 'pending' AND task.id > :afterId AND task.status IN (:...final)", {
        afterId,
        final: FINAL_TASK_STATUSES,
      })
      .andWhere('task.finished_at >= :since AND task.finished_at < :before', { since, before })
      .orderBy('task.id', 'ASC')
      .limit(limit)
      .getMany();
  }

  /**
   * Whether an item of the task ended at or after `since`. Read only for a task with no item pending that has not
   * ended: a scan of its items, in a state that lasts milliseconds unless the task's end was lost.
   */
  itemEndedSince(taskId: number, since: Date): Promise<boolean> {
    return this.items
      .createQueryBuilder('item')
      .where('item.task_id = :taskId AND item.finished_at >= :since', { taskId, since })
      .getExists();
  }
}
