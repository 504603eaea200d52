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

/**
 * A queue whose work outlives the process (BullMQ on Redis), as the reconciler (TaskReconciler) sees it: whether a
 * job is gone, and a lease that lets one process of all do a pass. Work queued in the process itself has neither:
 * it is in the database, and a restart queues it again (InProcessTaskQueue).
 */
export abstract class DurableTaskQueue extends TaskQueue {
  /** Whether the job of this id (taskJobId) is not in the queue: neither waiting, running, nor kept after it failed. */
  abstract lacks(jobId: string): Promise<boolean>;
  /** Takes the lease `name` for `ms` milliseconds unless a process holds it; true when this one took it. */
  abstract lease(name: string, ms: number): Promise<boolean>;
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
