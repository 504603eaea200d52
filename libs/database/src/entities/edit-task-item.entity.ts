import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { EditTaskEntity } from './edit-task.entity';

/** An item waits (`PENDING`) until it is `DONE` or `FAILED`; a final item is never run again. */
export const ITEM_STATUSES = ['PENDING', 'DONE', 'FAILED'] as const;
export type ItemStatus = (typeof ITEM_STATUSES)[number];

/** One input image of a task, numbered in listing order (`seq`, from 0): the key of its job. */
@Entity({ name: 'edit_task_items' })
@Index('IDX_edit_task_items_task_seq', ['taskId', 'seq'], { unique: true })
@Index('IDX_edit_task_items_task_status', ['taskId', 'status'])
@Index('IDX_edit_task_items_task_queue', ['taskId', 'status', 'queued', 'seq'])
export class EditTaskItemEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'task_id', type: 'integer' })
  taskId: number;

  @ManyToOne(() => EditTaskEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'task_id' })
  task?: EditTaskEntity;

  @Column({ type: 'integer' })
  seq: number;

  /** An http(s) URL or a `storage://` file reference. */
  @Column({ type: 'text' })
  input: string;

  /** Sub-folder below the output folder, from the input's place below the source folder (`''` or `a/b/`). */
  @Column({ name: 'sub_path', type: 'text', default: '' })
  subPath: string;

  @Column({ type: 'varchar', length: 8, default: 'PENDING' })
  status: ItemStatus;

  /**
   * True once the item was handed to the queue (TaskScheduler): a PENDING item that is queued counts against
   * TASK_OUTSTANDING_PER_TASK and TASK_OUTSTANDING_PER_ACCOUNT; the others wait in the database for their turn.
   */
  @Column({ type: 'boolean', default: false })
  queued: boolean;

  /** Runs started, the current one included. */
  @Column({ type: 'integer', default: 0 })
  attempts: number;

  /** ImageInfo of the input, once its header was read. */
  @Column({ name: 'input_info', type: 'simple-json', nullable: true })
  inputInfo: Record<string, unknown> | null;

  /** OutputImageInfo of the result. */
  @Column({ name: 'output_info', type: 'simple-json', nullable: true })
  outputInfo: Record<string, unknown> | null;

  /**
   * Why the item failed, once FAILED. On a PENDING item: why its last run failed, when that failure is being
   * retried (the task shows it under `retrying`); cleared when the item is DONE.
   */
  @Column({ type: 'text', nullable: true })
  error: string | null;

  /** Until when (ms since the epoch) a run holds this item: no other run starts it before (TaskItemRows.startItem). */
  @Column({ name: 'claimed_until', type: 'bigint', nullable: true })
  claimedUntil: string | null;

  @Column({ name: 'finished_at', nullable: true, type: Date })
  finishedAt: Date | null;
}
