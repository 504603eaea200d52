import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, Repository } from 'typeorm';
import { tasksEnded } from '@app/common';
import {
  ACTIVE_TASK_STATUSES,
  callsLeft,
  chargeKeyCalls,
  EditTaskEntity,
  EditTaskItemEntity,
  isFinalTaskStatus,
  type TaskKind,
  type TaskStatus,
  type WebhookState,
} from '@app/database';
import type { ImageInfo, OutputImageInfo } from '../image-info';
import type { EditNotice } from '../notices';

/** One input of a task as the expansion records it. */
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

/** What a run of an item needs of it, as {@link TaskStore.startItem} returns it. */
export interface StartedItem {
  id: number;
  input: string;
  subPath: string;
  /** Runs started so far, this one included: the token of this run's claim. */
  attempts: number;
}

/**
 * Statuses a task may move to from each status: forward only; a final status never moves. The one way back,
 * PAUSED -> PROCESSING, is not here: only {@link TaskStore.resume} takes it, when the store answers again.
 */
const NEXT: Record<TaskStatus, TaskStatus[]> = {
  ACCEPTED: ['PROCESSING', 'DONE', 'ERROR', 'CANCELLED'],
  PROCESSING: ['PAUSED', 'DONE', 'ERROR', 'CANCELLED'],
  PAUSED: ['DONE', 'ERROR', 'CANCELLED'],
  DONE: [],
  ERROR: [],
  CANCELLED: [],
};

/**
 * Tasks and items in the database: every change is one conditional UPDATE, so that several processes (API,
 * workers) racing on one task or item cannot move a status backwards or finish an item twice.
 */
@Injectable()
export class TaskStore {
  constructor(
    @InjectRepository(EditTaskEntity) private readonly tasks: Repository<EditTaskEntity>,
    @InjectRepository(EditTaskItemEntity) private readonly items: Repository<EditTaskItemEntity>,
  ) {}

  async create(
    owner: { accountId: number; keyId: number | null },
    kind: TaskKind,
    request: Record<string, unknown>,
    webhookUrl: string | undefined,
    itemTotal: number | null,
  ): Promise<EditTaskEntity> {
    return this.tasks.save(
      this.tasks.create({
        accountId: owner.accountId,
        keyId: owner.keyId,
        kind,
        status: 'ACCEPTED',
        request,
        error: null,
        expanded: false,
        itemTotal,
        webhookUrl: webhookUrl ?? null,
        webhookState: webhookUrl ? 'pending' : 'none',
        finishedAt: null,
      }),
    );
  }

  find(id: number): Promise<EditTaskEntity | null> {
    return this.tasks.findOneBy({ id });
  }

  findOwned(accountId: number, id: number, kind: TaskKind): Promise<EditTaskEntity | null> {
    return this.tasks.findOneBy({ id, accountId, kind });
  }

  /** Moves the task to `status` if that is forward from where it is; returns whether it moved. */
  async advance(id: number, status: TaskStatus, error?: string): Promise<boolean> {
    const from = (Object.keys(NEXT) as TaskStatus[]).filter((s) => NEXT[s].includes(status));
    const final = isFinalTaskStatus(status);
    const result = await this.tasks.update(
      { id, status: In(from) },
      { status, ...(error !== undefined && { error }), ...(final && { finishedAt: new Date() }) },
    );
    const moved = (result.affected ?? 0) > 0;
    if (moved && final) tasksEnded.inc({ status });
    return moved;
  }

  /** PROCESSING -> PAUSED since now, for `reason` (its output store failed); false when it was not PROCESSING. */
  async pause(id: number, reason: string): Promise<boolean> {
    const result = await this.tasks.update(
      { id, status: 'PROCESSING' },
      { status: 'PAUSED', pausedAt: new Date(), pauseReason: reason },
    );
    return (result.affected ?? 0) > 0;
  }

  /** PAUSED -> PROCESSING (its store answers again); false when it was not PAUSED (it ended, or resumed already). */
  async resume(id: number): Promise<boolean> {
    const result = await this.tasks.update(
      { id, status: 'PAUSED' },
      { status: 'PROCESSING', pausedAt: null, pauseReason: null },
    );
    return (result.affected ?? 0) > 0;
  }

  /** Up to `limit` PAUSED tasks with ids above `afterId`, in id order (a keyset page of IDX_edit_tasks_status). */
  pausedPage(afterId: number, limit: number): Promise<EditTaskEntity[]> {
    return this.tasks
      .createQueryBuilder('task')
      .where("task.status = 'PAUSED' AND task.id > :afterId", { afterId })
      .orderBy('task.id', 'ASC')
      .limit(limit)
      .getMany();
  }

  /** Ends every pending item of the task FAILED with `error` (one statement); returns how many. */
  async failPending(taskId: number, error: string): Promise<number> {
    const result = await this.items.update(
      { taskId, status: 'PENDING' },
      { status: 'FAILED', error, finishedAt: new Date() },
    );
    return result.affected ?? 0;
  }

  /** Records why a task that has not ended will end in ERROR once its recorded items are final. */
  async setPendingError(id: number, error: string): Promise<void> {
    await this.tasks.update({ id, status: In(ACTIVE_TASK_STATUSES) }, { error });
  }

  async markExpanded(id: number): Promise<void> {
    await this.tasks.update({ id }, { expanded: true });
  }

  /** Sets the webhook's state and lets go of a delivery's claim (`pending` again: the delivery is retried). */
  async setWebhookState(id: number, state: WebhookState): Promise<void> {
    await this.tasks.update({ id }, { webhookState: state, webhookClaimedUntil: null });
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

  /**
   * Claims the delivery of an ended task's webhook until `claimUntil` (ms since the epoch): `pending` -> `sending`
   * in one conditional UPDATE, or a `sending` whose claim ran out (its run died); false when it is not to be sent or
   * another run holds it.
   */
  async claimWebhook(id: number, claimUntil: number): Promise<boolean> {
    const result = await this.tasks
      .createQueryBuilder()
      .update(EditTaskEntity)
      .set({ webhookState: 'sending', webhookClaimedUntil: String(claimUntil) })
      .where('id = :id', { id })
      .andWhere(
        "(webhook_state = 'pending' OR (webhook_state = 'sending' AND " +
          '(webhook_claimed_until IS NULL OR webhook_claimed_until < :now)))',
        { now: Date.now() },
      )
      .execute();
    return (result.affected ?? 0) > 0;
  }

  /** Extends the claim of a webhook delivery that is still going. */
  async renewWebhookClaim(id: number, claimUntil: number): Promise<void> {
    await this.tasks.update({ id, webhookState: 'sending' }, { webhookClaimedUntil: String(claimUntil) });
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
  async finishItem(
    id: number,
    outcome:
      | { status: 'DONE'; input: ImageInfo; output: OutputImageInfo; notices?: EditNotice[] }
      | { status: 'FAILED'; input?: ImageInfo; error: string },
  ): Promise<boolean> {
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

  /** An account's tasks, newest first, `limit` from `offset`, with how many match in all. */
  async listOwned(
    accountId: number,
    filter: { status?: TaskStatus; kind?: TaskKind },
    offset: number,
    limit: number,
  ): Promise<{ tasks: EditTaskEntity[]; total: number }> {
    const where = {
      accountId,
      ...(filter.status && { status: filter.status }),
      ...(filter.kind && { kind: filter.kind }),
    };
    const [tasks, total] = await this.tasks.findAndCount({ where, order: { id: 'DESC' }, skip: offset, take: limit });
    return { tasks, total };
  }

  /** Any task of the account, of either kind. */
  findOwnedAnyKind(accountId: number, id: number): Promise<EditTaskEntity | null> {
    return this.tasks.findOneBy({ id, accountId });
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

  /** How many tasks of the account have not ended: an index range (IDX_edit_tasks_account_status). */
  activeCount(accountId: number): Promise<number> {
    return this.tasks.countBy({ accountId, status: In(ACTIVE_TASK_STATUSES) });
  }

  /** The tasks of a key that have not ended. */
  async activeTasksOfKey(keyId: number): Promise<EditTaskEntity[]> {
    return this.tasks.find({ where: { keyId, status: In(ACTIVE_TASK_STATUSES) }, order: { id: 'ASC' } });
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

  /** Charges `calls` to the key's quota, atomically; false when its calls left cannot cover them (key-quota.ts). */
  chargeKey(keyId: number, calls: number): Promise<boolean> {
    return chargeKeyCalls(this.tasks.manager, keyId, calls);
  }

  /** The key's calls left; null when it has no quota. */
  keyCallsLeft(keyId: number): Promise<number | null> {
    return callsLeft(this.tasks.manager, keyId);
  }

  /** Tasks that have not ended (to resume after a restart in embedded mode). */
  async unfinished(): Promise<number[]> {
    const rows = await this.tasks.find({
      select: { id: true },
      where: { status: In(ACTIVE_TASK_STATUSES) },
      order: { id: 'ASC' },
    });
    return rows.map((row) => row.id);
  }
}
