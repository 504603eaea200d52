import { activeTraceparent, contextOfTraceparent, SpanKind, withSpan, type Attributes } from '@app/common';
import { EDIT_QUEUE } from '../queue.constants';

/**
 * The queue hop of a trace (docs/operations.md, "Tracing"), the same for both TaskQueue adapters: a job carries
 * the W3C `traceparent` of the work that queued it, and its run continues that trace as a consumer span. The
 * attributes are the messaging conventions' (incubating, hence written here) and the task's ids.
 */
export interface TracedJob {
  /** `task-expand`, `task-item`, `task-webhook`. */
  name: string;
  taskId: number;
  seq?: number;
  /** BullMQ's job id; none in the embedded queue. */
  id?: string;
  /** Runs of this job so far, this one included. */
  attempt: number;
  traceparent?: string;
}

function jobAttributes(system: string, job: Pick<TracedJob, 'name' | 'taskId' | 'seq'>): Attributes {
  return {
    'messaging.system': system,
    'messaging.destination.name': EDIT_QUEUE,
    'atelier.job.name': job.name,
    'atelier.task.id': job.taskId,
    ...(job.seq !== undefined && { 'atelier.task.item': job.seq }),
  };
}

/**
 * Queues jobs inside a producer span `send <job name>` and hands `add` the traceparent the jobs carry (undefined
 * with tracing off: nothing is added to their data).
 */
export function sendJobs<T>(
  system: string,
  job: { name: string; taskId: number; count: number },
  add: (traceparent: string | undefined) => Promise<T>,
): Promise<T> {
  const attributes = {
    ...jobAttributes(system, job),
    'messaging.operation.type': 'send',
    ...(job.count > 1 && { 'messaging.batch.message_count': job.count }),
  };
  return withSpan(`send ${job.name}`, { kind: SpanKind.PRODUCER, attributes }, () => add(activeTraceparent()));
}

/** Runs a job inside the consumer span `process <job name>`, a child of the context its traceparent carries. */
export function processJob<T>(system: string, job: TracedJob, run: () => Promise<T>): Promise<T> {
  return withSpan(
    `process ${job.name}`,
    {
      kind: SpanKind.CONSUMER,
      parent: contextOfTraceparent(job.traceparent),
      attributes: {
        ...jobAttributes(system, job),
        'messaging.operation.type': 'process',
        ...(job.id !== undefined && { 'messaging.message.id': job.id }),
        'atelier.job.attempt': job.attempt,
      },
    },
    run,
  );
}
