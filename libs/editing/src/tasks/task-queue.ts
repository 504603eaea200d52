/**
 * Where task work goes: BullMQ on Redis (scaled mode; the worker app runs it) or the API process itself
 * (embedded mode). Work is named by ids only, never by image bytes; adding the same work twice runs it once
 * (BullMQ job ids), and running a finished item again does nothing (TaskRunner checks the item first).
 */
export abstract class TaskQueue {
  /** A new (or resumed) task: list its input and record its items. */
  abstract start(taskId: number): Promise<void>;
  /** Items the listing recorded, to edit. May wait while the queue is full (embedded mode's backpressure). */
  abstract addItems(taskId: number, seqs: number[]): Promise<void>;
  /** The task ended and asked for a webhook: deliver it (retried with backoff). */
  abstract deliverWebhook(taskId: number): Promise<void>;
}

/** BullMQ job names and ids: deterministic, so that a repeated listing never queues an item twice. */
export const TaskJobs = {
  expand: 'task-expand',
  item: 'task-item',
  webhook: 'task-webhook',
} as const;

export const taskJobId = {
  expand: (taskId: number) => `task-${taskId}-expand`,
  item: (taskId: number, seq: number) => `task-${taskId}-item-${seq}`,
  webhook: (taskId: number) => `task-${taskId}-webhook`,
};

export interface ExpandJob {
  taskId: number;
  /** The W3C trace context of the work that queued the job, with tracing on (task-tracing.ts); no other data. */
  traceparent?: string;
}
export interface ItemJob extends ExpandJob {
  seq: number;
}
export type WebhookJob = ExpandJob;
