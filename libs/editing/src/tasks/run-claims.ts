import type { Logger } from '@nestjs/common';
import { ServiceException } from '@app/common';
import type { EditTaskEntity, StartedItem, TaskItemRows, TaskRows } from '@app/database';
import { failureMessage } from './task-failure';

/**
 * The claims that keep work from running beside itself when its job is added twice (the reconciler, a stalled job):
 * a run claims its item, or its task's webhook delivery, in one conditional UPDATE for WORKER_LOCK_MS (`leaseMs`),
 * renews the claim while it works, and lets it go when it ends; a run whose process died lets it go within the lease.
 * A run that finds the work held comes back later (a transient failure) in case the other run dies; on its last
 * attempt it waits for the claim to run out and tries once more, so that the work of a run that died is not left
 * pending.
 */
export class RunClaims {
  constructor(
    private readonly store: TaskRows,
    private readonly itemRows: TaskItemRows,
    private readonly leaseMs: number,
    private readonly logger: Logger,
  ) {}

  /**
   * Claims and starts the item (one statement): the started item; `ended` when it had already ended (a run again
   * after its end: what follows an item's end may not have run); null when it is not to run here.
   */
  async item(taskId: number, seq: number, finalAttempt: boolean): Promise<StartedItem | 'ended' | null> {
    for (let tries = 0; tries < 2; tries++) {
      const item = await this.itemRows.startItem(taskId, seq, Date.now() + this.leaseMs);
      if (item) return item;
      // Read again to tell why it did not start (rare).
      const existing = await this.itemRows.item(taskId, seq);
      if (!existing) return null;
      if (existing.status !== 'PENDING') return 'ended';
      if (!finalAttempt) throw underWay(`task ${taskId} item ${seq}`);
      await this.waitOut(existing.claimedUntil);
    }
    return null;
  }

  /** pending -> sending in one conditional UPDATE: true when this run is to deliver the task's webhook. */
  async webhook(task: EditTaskEntity, finalAttempt: boolean): Promise<boolean> {
    let current: EditTaskEntity | null = task;
    for (let tries = 0; tries < 2 && current?.webhookState === 'sending'; tries++) {
      if (!finalAttempt) throw underWay(`task ${task.id} webhook`);
      await this.waitOut(current.webhookClaimedUntil);
      if (await this.store.claimWebhook(task.id, Date.now() + this.leaseMs)) return true;
      current = await this.store.find(task.id);
    }
    return current?.webhookState === 'pending' && (await this.store.claimWebhook(task.id, Date.now() + this.leaseMs));
  }

  /**
   * Runs `work` while renewing its claim (item or webhook) every third of the lease, so that a run longer than the
   * claim keeps it.
   */
  async holding<T>(renew: (until: number) => Promise<void>, work: () => Promise<T>): Promise<T> {
    const timer = setInterval(
      () => {
        renew(Date.now() + this.leaseMs).catch((error: unknown) => {
          this.logger.warn(`a run's claim could not be renewed: ${failureMessage(error)}`);
        });
      },
      Math.max(1, Math.floor(this.leaseMs / 3)),
    );
    try {
      return await work();
    } finally {
      clearInterval(timer);
    }
  }

  /** Waits until another run's claim (epoch ms, as stored) has run out; the lease at most. */
  private waitOut(claimedUntil: string | number | null | undefined): Promise<void> {
    const wait = Math.min(this.leaseMs, Math.max(0, Number(claimedUntil ?? 0) - Date.now()) + 10);
    return new Promise((resolve) => setTimeout(resolve, wait));
  }
}

/** Work another run holds: retried (transient), so that it still runs should that run die. Never shown to a client. */
function underWay(what: string): ServiceException {
  return new ServiceException('EDIT_BUSY', `${what}: another run of it is under way; trying again later.`);
}
