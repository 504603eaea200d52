import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, Repository } from 'typeorm';
import { tasksEnded } from '@app/common';
import {
  ACTIVE_TASK_STATUSES,
  EditTaskEntity,
  isFinalTaskStatus,
  type TaskStatus,
  type WebhookState,
} from '../entities';

/**
 * Statuses a task may move to from each status: forward only; a final status never moves. The one way back,
 * PAUSED -> PROCESSING, is not here: only {@link TaskRows.resume} takes it, when the store answers again.
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
 * Batch and asynchronous tasks (their items are TaskItemRows'): every change is one conditional UPDATE, so that
 * several processes (API, workers) racing on one task cannot move its status backwards or deliver its webhook twice.
 */
@Injectable()
export class TaskRows {
  constructor(@InjectRepository(EditTaskEntity) private readonly tasks: Repository<EditTaskEntity>) {}

  async create(
    owner: { accountId: number; keyId: number | null },
    kind: string,
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

  findOwned(accountId: number, id: number, kind: string): Promise<EditTaskEntity | null> {
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

  /** An account's tasks, newest first, `limit` from `offset`, with how many match in all. */
  async listOwned(
    accountId: number,
    filter: { status?: TaskStatus; kind?: string },
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

  /** How many tasks of the account have not ended: an index range (IDX_edit_tasks_account_status). */
  activeCount(accountId: number): Promise<number> {
    return this.tasks.countBy({ accountId, status: In(ACTIVE_TASK_STATUSES) });
  }

  /** The tasks of a key that have not ended. */
  async activeTasksOfKey(keyId: number): Promise<EditTaskEntity[]> {
    return this.tasks.find({ where: { keyId, status: In(ACTIVE_TASK_STATUSES) }, order: { id: 'ASC' } });
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
