import { Injectable } from '@nestjs/common';
import { InjectDataSource, InjectRepository } from '@nestjs/typeorm';
import { DataSource, IsNull, Repository, type EntityManager } from 'typeorm';
import {
  ACTIVE_TASK_STATUSES,
  ApiKeyEntity,
  EditTaskEntity,
  EditTaskItemEntity,
  FINAL_TASK_STATUSES,
  SCHEDULED_TASK_STATUSES,
} from '../entities';

/** A task's pending items: handed to the queue, or waiting in the database for their turn. */
export interface PendingItems {
  queued: number;
  waiting: number;
}

/**
 * A task that has not ended, as the scheduler sees it: whether the key that created it was revoked since, and its
 * pending items (PendingItems).
 */
export interface ActiveTask extends PendingItems {
  id: number;
  keyRevoked: boolean;
}

/**
 * What a top-up reads and claims under its account's lock (ScheduleRows.underAccountLock): the account's running
 * tasks, and the hand-over of items to the queue.
 */
export interface LockedSchedule {
  activeTasks(accountId: number, cap: number): Promise<ActiveTask[]>;
  claim(wanted: Map<number, number>): Promise<Map<number, number[]>>;
}

/**
 * The scheduler's rows (TaskScheduler in libs/editing, docs/batch.md "Scheduling"): an account's running tasks with
 * each task's items in the queue and waiting, and the conditional hand-over of items to the queue, one statement
 * each however many tasks the account has, under the account's lock. Also the reconciler's keyset pages of the tasks
 * whose work should be in the queue (TaskReconciler).
 */
@Injectable()
export class ScheduleRows {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @InjectRepository(EditTaskEntity) private readonly tasks: Repository<EditTaskEntity>,
    @InjectRepository(EditTaskItemEntity) private readonly items: Repository<EditTaskItemEntity>,
  ) {}

  /**
   * Runs `work` with the account's top-ups serialised across processes: in PostgreSQL inside a transaction that
   * holds the account's row lock (SELECT ... FOR UPDATE) until it ends, so that the counts it reads are not stale;
   * in SQLite (one process) as it is.
   */
  underAccountLock<T>(accountId: number, work: (schedule: LockedSchedule) => Promise<T>): Promise<T> {
    const within = (manager?: EntityManager): LockedSchedule => ({
      activeTasks: (id, cap) => this.activeTasks(id, cap, manager),
      claim: (wanted) => this.claim(wanted, manager),
    });
    if (this.dataSource.options.type !== 'postgres') return work(within());
    return this.dataSource.transaction(async (manager) => {
      await manager.query('SELECT id FROM accounts WHERE id = $1 FOR UPDATE', [accountId]);
      return work(within(manager));
    });
  }

  /**
   * The account's tasks that have not ended, oldest first (the order their items are queued in), each with whether
   * its key was revoked and its pending items: how many are in the queue, and how many wait (counted up to `cap`,
   * all a top-up can use). One grouped statement however many tasks the account has (TASK_ACTIVE_PER_ACCOUNT bounds
   * them); each count is an index range (IDX_edit_task_items_task_queue) of at most a few rows, so a top-up costs
   * the same at the first item of a 50,000-item task as at its last. `manager`: the account lock's transaction.
   */
  private async activeTasks(accountId: number, cap: number, manager?: EntityManager): Promise<ActiveTask[]> {
    const rows: {
      id: number | string;
      revoked: boolean | number | null;
      queued: number | string;
      waiting: number | string;
    }[] = await (manager ?? this.tasks.manager)
      .createQueryBuilder(EditTaskEntity, 'task')
      .leftJoin(ApiKeyEntity, 'key', 'key.id = task.key_id')
      .select('task.id', 'id')
      .addSelect('key.revoked', 'revoked')
      .addSelect(
        // an item waiting for its retry (error set) holds no place: see queuedCount
        "(SELECT COUNT(*) FROM edit_task_items queued WHERE queued.task_id = task.id AND queued.status = 'PENDING' " +
          'AND queued.queued AND queued.error IS NULL)',
        'queued',
      )
      .addSelect(
        '(SELECT COUNT(*) FROM (SELECT 1 FROM edit_task_items waiting WHERE waiting.task_id = task.id ' +
          "AND waiting.status = 'PENDING' AND NOT waiting.queued LIMIT :cap) waiting_rows)",
        'waiting',
      )
      .where('task.account_id = :accountId AND task.status IN (:...active)', {
        accountId,
        active: SCHEDULED_TASK_STATUSES,
        cap,
      })
      .orderBy('task.id', 'ASC')
      .getRawMany();
    return rows.map((row) => ({
      id: Number(row.id),
      keyRevoked: Boolean(row.revoked),
      queued: Number(row.queued),
      waiting: Number(row.waiting),
    }));
  }

  /**
   * How many of the task's pending items hold a place in the queue (at most TASK_OUTSTANDING_PER_TASK, an index
   * range): those queued, less those whose last run failed and that wait for their retry (`error` set), which hold
   * none (docs/batch.md, "Retries"), so that a failing item does not keep its account's other work waiting.
   */
  queuedCount(taskId: number): Promise<number> {
    return this.items.countBy({ taskId, status: 'PENDING', queued: true, error: IsNull() });
  }

  /**
   * Marks, for each task of `wanted`, up to that many of its pending items that are not queued yet as queued, in
   * order, and returns the seqs this call marked by task: one conditional UPDATE ... RETURNING for all the tasks (a
   * top-up claims for at most TASK_OUTSTANDING_PER_ACCOUNT tasks), so that two processes never both hand one item
   * over and a top-up's statements do not grow with the account's tasks.
   */
  private async claim(wanted: Map<number, number>, manager?: EntityManager): Promise<Map<number, number[]>> {
    const claimed = new Map<number, number[]>();
    const entries = [...wanted].filter(([, limit]) => limit > 0);
    if (entries.length === 0) return claimed;
    const connection = (manager ?? this.items.manager).connection;
    const postgres = connection.driver.options.type === 'postgres';
    const parameters: number[] = [];
    const bind = (value: number) => {
      parameters.push(value);
      return postgres ? `$${parameters.length}` : '?';
    };
    // One keyset range of the index per task, each in a subquery of its own (its own ORDER BY and LIMIT).
    const ranges = entries.map(
      ([taskId, limit], index) =>
        `SELECT id FROM (SELECT id FROM edit_task_items WHERE task_id = ${bind(taskId)} AND status = 'PENDING' ` +
        `AND NOT queued ORDER BY seq LIMIT ${bind(limit)}) range_${index}`,
    );
    const runner = manager?.queryRunner ?? connection.createQueryRunner();
    try {
      const result = await runner.query(
        `UPDATE edit_task_items SET queued = TRUE WHERE NOT queued AND id IN (${ranges.join(' UNION ALL ')}) ` +
          'RETURNING task_id, seq',
        parameters,
        true,
      );
      const rows = (result.records ?? []) as { task_id: number | string; seq: number | string }[];
      for (const row of rows.sort((a, b) => Number(a.seq) - Number(b.seq))) {
        const taskId = Number(row.task_id);
        claimed.set(taskId, [...(claimed.get(taskId) ?? []), Number(row.seq)]);
      }
      return claimed;
    } finally {
      if (!manager?.queryRunner) await runner.release();
    }
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
