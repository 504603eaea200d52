import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, Repository } from 'typeorm';
import { EditTaskEntity, EditTaskItemEntity } from '../entities';

/** One input of a task as the listing records it. */
export interface NewItem {
  seq: number;
  input: string;
  subPath: string;
}

export interface TaskCounts {
  total: number;
  done: number;
  failed: number;
  pending: number;
}

/** Pending items whose last run failed and that run again: how many, and the first of them. */
export interface RetryingItems {
  count: number;
  items: EditTaskItemEntity[];
}

/** What a run of an item needs of it, as {@link TaskItemRows.startItem} returns it. */
export interface StartedItem {
  id: number;
  input: string;
  subPath: string;
  /** Runs started so far, this one included: the token of this run's claim. */
  attempts: number;
}

/**
 * How an item ended: DONE with what its input and output were (ImageInfo and OutputImageInfo of libs/editing) and
 * the edit's notices, or FAILED with why.
 */
export type ItemOutcome =
  | { status: 'DONE'; input: object; output: object; notices?: object[] }
  | { status: 'FAILED'; input?: object; error: string };

/**
 * The items of tasks (one per input image): every change is one conditional UPDATE, so that several processes
 * racing on one item cannot run it beside itself or finish it twice.
 */
@Injectable()
export class TaskItemRows {
  constructor(@InjectRepository(EditTaskItemEntity) private readonly items: Repository<EditTaskItemEntity>) {}

  /** Ends every pending item of the task FAILED with `error` (one statement); returns how many. */
  async failPending(taskId: number, error: string): Promise<number> {
    const result = await this.items.update(
      { taskId, status: 'PENDING' },
      { status: 'FAILED', error, finishedAt: new Date() },
    );
    return result.affected ?? 0;
  }

  /** Records items; ones already recorded (a repeated expansion) are left as they are. */
  async addItems(taskId: number, items: NewItem[]): Promise<void> {
    if (items.length === 0) return;
    await this.items
      .createQueryBuilder()
      .insert()
      .into(EditTaskItemEntity)
      .values(items.map((item) => ({ taskId, ...item, status: 'PENDING' as const, attempts: 0 })))
      .orIgnore()
      .execute();
  }

  item(taskId: number, seq: number): Promise<EditTaskItemEntity | null> {
    return this.items.findOneBy({ taskId, seq });
  }

  /**
   * Starts a run of the pending item `seq` of a task: claims it until `claimUntil` (ms since the epoch), counts the
   * attempt and returns the item, in one conditional UPDATE ... RETURNING (SQLite and PostgreSQL both have it;
   * TypeORM's builder offers it for PostgreSQL only); null when the item does not exist, is already final (it must
   * not run again) or another run holds it (its claim has not run out): the same item never runs beside itself,
   * however often its job is added (the reconciler, a stalled job). `attempts` is the claim's token (renewItemClaim).
   */
  async startItem(taskId: number, seq: number, claimUntil: number): Promise<StartedItem | null> {
    const postgres = this.items.manager.connection.driver.options.type === 'postgres';
    // Bound in the order they appear (SQLite's `?` are positional).
    const [until, task, position, now] = postgres ? ['$1', '$2', '$3', '$4'] : ['?', '?', '?', '?'];
    const runner = this.items.manager.connection.createQueryRunner();
    try {
      const result = await runner.query(
        `UPDATE edit_task_items SET attempts = attempts + 1, claimed_until = ${until} WHERE task_id = ${task} ` +
          `AND seq = ${position} AND status = 'PENDING' AND (claimed_until IS NULL OR claimed_until < ${now}) ` +
          'RETURNING id, input, sub_path, attempts',
        [claimUntil, taskId, seq, Date.now()],
        true,
      );
      const row = (
        result.records as { id: number | string; input: string; sub_path: string; attempts: number | string }[]
      )?.[0];
      return row
        ? { id: Number(row.id), input: row.input, subPath: row.sub_path, attempts: Number(row.attempts) }
        : null;
    } finally {
      await runner.release();
    }
  }

  /** Extends the claim of a run that is still going (its `attempts` token unchanged, the item still pending). */
  async renewItemClaim(item: Pick<StartedItem, 'id' | 'attempts'>, claimUntil: number): Promise<void> {
    await this.items.update(
      { id: item.id, attempts: item.attempts, status: 'PENDING' },
      { claimedUntil: String(claimUntil) },
    );
  }

  /** Whether any item of the task is still pending: one index lookup (task_id, status), not a count of them all. */
  async hasPending(taskId: number): Promise<boolean> {
    return this.items.exists({ where: { taskId, status: 'PENDING' } });
  }

  /**
   * Records why a run of a pending item failed when that run will be retried: the task shows the item as retrying
   * with this message until a later run finishes it.
   */
  async recordFailedAttempt(id: number, error: string): Promise<void> {
    // The claim goes with the run: its retry may start at once.
    await this.items.update({ id, status: 'PENDING' }, { error, claimedUntil: null });
  }

  /** Finishes a pending item; false when another run finished it first. */
  async finishItem(id: number, outcome: ItemOutcome): Promise<boolean> {
    const values =
      outcome.status === 'DONE'
        ? {
            status: outcome.status,
            inputInfo: { ...outcome.input },
            // the edit's notices beside the output, in the same JSON column (no migration; task-view.ts splits them)
            outputInfo: { ...outcome.output, ...(outcome.notices && { notices: outcome.notices }) },
            error: null,
          }
        : { status: outcome.status, inputInfo: outcome.input ? { ...outcome.input } : null, error: outcome.error };
    const result = await this.items.update({ id, status: 'PENDING' }, { ...values, finishedAt: new Date() });
    return (result.affected ?? 0) > 0;
  }

  async counts(taskId: number): Promise<TaskCounts> {
    const rows: { status: string; count: string | number }[] = await this.items
      .createQueryBuilder('item')
      .select('item.status', 'status')
      .addSelect('COUNT(*)', 'count')
      .where('item.task_id = :taskId', { taskId })
      .groupBy('item.status')
      .getRawMany();
    const by = Object.fromEntries(rows.map((row) => [row.status, Number(row.count)]));
    const done = by.DONE ?? 0;
    const failed = by.FAILED ?? 0;
    const pending = by.PENDING ?? 0;
    return { total: done + failed + pending, done, failed, pending };
  }

  /**
   * The pending items whose last run failed (a run recorded its reason): the first `limit` in order, and how many
   * in all, read by one statement so that the count and the list always agree.
   */
  async retrying(taskId: number, limit: number): Promise<RetryingItems> {
    const { entities, raw } = await this.items
      .createQueryBuilder('item')
      .addSelect('COUNT(*) OVER ()', 'retrying_count')
      .where('item.task_id = :taskId AND item.status = :status AND item.error IS NOT NULL', {
        taskId,
        status: 'PENDING',
      })
      .orderBy('item.seq', 'ASC')
      .limit(limit)
      .getRawAndEntities<{ retrying_count: string | number }>();
    return { count: Number(raw[0]?.retrying_count ?? 0), items: entities };
  }

  /** Final items, in order, for the task's `results` and `errors`. */
  finishedItems(taskId: number): Promise<EditTaskItemEntity[]> {
    return this.items.find({
      where: { taskId, status: In(['DONE', 'FAILED']) },
      order: { seq: 'ASC' },
    });
  }

  /** The item counts of several tasks at once (a page of a listing): by task id; retrying counted too. */
  async countsOf(taskIds: number[]): Promise<Map<number, TaskCounts & { retrying: number }>> {
    const counts = new Map<number, TaskCounts & { retrying: number }>();
    for (const id of taskIds) counts.set(id, { total: 0, done: 0, failed: 0, pending: 0, retrying: 0 });
    if (taskIds.length === 0) return counts;
    const rows: { taskId: number; status: string; retrying: string | number; count: string | number }[] =
      await this.items
        .createQueryBuilder('item')
        .select('item.task_id', 'taskId')
        .addSelect('item.status', 'status')
        .addSelect('COUNT(*)', 'count')
        .addSelect('SUM(CASE WHEN item.error IS NOT NULL THEN 1 ELSE 0 END)', 'retrying')
        .where('item.task_id IN (:...taskIds)', { taskIds })
        .groupBy('item.task_id')
        .addGroupBy('item.status')
        .getRawMany();
    for (const row of rows) {
      const entry = counts.get(Number(row.taskId))!;
      const count = Number(row.count);
      entry.total += count;
      if (row.status === 'DONE') entry.done += count;
      else if (row.status === 'FAILED') entry.failed += count;
      else {
        entry.pending += count;
        entry.retrying += Number(row.retrying);
      }
    }
    return counts;
  }

  /** One page of a task's final items of one status, in order, with how many there are. */
  async finishedPage(
    taskId: number,
    status: 'DONE' | 'FAILED',
    offset: number,
    limit: number,
  ): Promise<{ items: EditTaskItemEntity[]; total: number }> {
    const [items, total] = await this.items.findAndCount({
      where: { taskId, status },
      order: { seq: 'ASC' },
      skip: offset,
      take: limit,
    });
    return { items, total };
  }

  /** A task's final items of one status after `afterSeq`, in order, `limit` at most (a keyset page). */
  finishedAfter(
    taskId: number,
    status: 'DONE' | 'FAILED',
    afterSeq: number,
    limit: number,
  ): Promise<EditTaskItemEntity[]> {
    return this.items
      .createQueryBuilder('item')
      .where('item.task_id = :taskId AND item.status = :status AND item.seq > :afterSeq', { taskId, status, afterSeq })
      .orderBy('item.seq', 'ASC')
      .limit(limit)
      .getMany();
  }

  /**
   * The account's most recent failed items (newest first), with their task's id; with `keyId`, only those of
   * the tasks that key created.
   */
  recentFailures(accountId: number, limit: number, keyId?: number): Promise<EditTaskItemEntity[]> {
    const query = this.items
      .createQueryBuilder('item')
      .innerJoin(EditTaskEntity, 'task', 'task.id = item.task_id')
      .where('task.account_id = :accountId AND item.status = :status', { accountId, status: 'FAILED' });
    if (keyId !== undefined) query.andWhere('task.key_id = :keyId', { keyId });
    return query.orderBy('item.finished_at', 'DESC').addOrderBy('item.id', 'DESC').limit(limit).getMany();
  }

  /** Seqs of the task's items that were queued and are not final: to queue again after a restart. */
  async queuedPending(taskId: number): Promise<number[]> {
    const rows = await this.items.find({
      select: { seq: true },
      where: { taskId, status: 'PENDING', queued: true },
      order: { seq: 'ASC' },
    });
    return rows.map((row) => row.seq);
  }
}
