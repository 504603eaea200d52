import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { AccountEntity } from './account.entity';

/**
 * `ACCEPTED -> PROCESSING -> DONE | ERROR`, or `CANCELLED` from any status before; never backwards, except
 * `PROCESSING <-> PAUSED` while its output store is down (docs/batch.md, "When the output store is down").
 */
export const TASK_STATUSES = ['ACCEPTED', 'PROCESSING', 'PAUSED', 'DONE', 'ERROR', 'CANCELLED'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

/** The statuses a task ends in: nothing of it runs any more, and it never moves again. */
export const FINAL_TASK_STATUSES: readonly TaskStatus[] = ['DONE', 'ERROR', 'CANCELLED'];

export const isFinalTaskStatus = (status: TaskStatus): boolean => FINAL_TASK_STATUSES.includes(status);

/** The statuses of a task that has not ended. */
export const ACTIVE_TASK_STATUSES: TaskStatus[] = ['ACCEPTED', 'PROCESSING', 'PAUSED'];

/**
 * The statuses of a task whose items the scheduler hands to the queue and counts against its account's places: a
 * PAUSED task holds none (its items already in the queue wait there without running: TaskRunner.runItem).
 */
export const SCHEDULED_TASK_STATUSES: TaskStatus[] = ['ACCEPTED', 'PROCESSING'];

/**
 * Where the task's webhook stands: none asked, waiting for the task to end (or for a delivery), being delivered by
 * the run that claimed it (until `webhookClaimedUntil`), delivered, or given up.
 */
export type WebhookState = 'none' | 'pending' | 'sending' | 'sent' | 'failed';

/** A batch or asynchronous edit. Its items are {@link EditTaskItemEntity}; its counts come from them. */
@Entity({ name: 'edit_tasks' })
@Index('IDX_edit_tasks_status', ['status'])
@Index('IDX_edit_tasks_account_status', ['accountId', 'status'])
@Index('IDX_edit_tasks_webhook_pending', ['id'], { where: "webhook_state = 'pending'" })
export class EditTaskEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'account_id', type: 'integer' })
  accountId: number;

  @ManyToOne(() => AccountEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'account_id' })
  account?: AccountEntity;

  /**
   * The key that created the task: revoking it cancels the task, and a key with a quota is charged per image.
   * Null for tasks created before it was recorded and for the configured ADMIN_API_KEY.
   */
  @Column({ name: 'key_id', type: 'integer', nullable: true })
  keyId: number | null;

  @Column({ type: 'varchar', length: 8 })
  kind: string;

  @Column({ type: 'varchar', length: 16 })
  status: TaskStatus;

  /** The request body as the caller sent it (shown back in the task). */
  @Column({ type: 'simple-json' })
  request: Record<string, unknown>;

  /** Why the task could not run at all (a missing folder, a refused storage); null otherwise. */
  @Column({ type: 'text', nullable: true })
  error: string | null;

  /** True once every item is recorded (the folder listed to its end); the task can end only then. */
  @Column({ type: 'boolean', default: false })
  expanded: boolean;

  /**
   * How many items the input names, when that is known at creation (a list of files or URLs, one file): the task's
   * total from its first answer on. Null for a folder, whose total is the count of items listed so far.
   */
  @Column({ name: 'item_total', type: 'integer', nullable: true })
  itemTotal: number | null;

  @Column({ name: 'webhook_url', type: 'text', nullable: true })
  webhookUrl: string | null;

  @Column({ name: 'webhook_state', type: 'varchar', length: 8, default: 'none' })
  webhookState: WebhookState;

  /** Until when (ms since the epoch) the run delivering the webhook (`sending`) holds it (TaskRows.claimWebhook). */
  @Column({ name: 'webhook_claimed_until', type: 'bigint', nullable: true })
  webhookClaimedUntil: string | null;

  @CreateDateColumn({ name: 'created_at' })
  createdAt: Date;

  @Column({ name: 'finished_at', nullable: true, type: Date })
  finishedAt: Date | null;

  /** Since when the task is PAUSED (its output store failed); null when it is not. */
  @Column({ name: 'paused_at', nullable: true, type: Date })
  pausedAt: Date | null;

  /** Why the task is PAUSED, as its body shows it; null when it is not. */
  @Column({ name: 'pause_reason', type: 'text', nullable: true })
  pauseReason: string | null;
}
