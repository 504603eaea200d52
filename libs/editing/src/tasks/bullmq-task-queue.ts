import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { Queue, type JobsOptions } from 'bullmq';
import { Redis } from 'ioredis';
import { AppConfig, clearQueueSource, setQueueSource, type QueueSnapshot } from '@app/common';
import { EDIT_QUEUE } from '../queue.constants';
import { DurableTaskQueue, TaskJobs, taskJobId, type ExpandJob, type ItemJob } from './task-queue';
import { sendJobs } from './task-tracing';

/** `messaging.system` of the spans of this queue. */
export const BULLMQ = 'bullmq';

/** A Redis connection for BullMQ: its blocking commands need unlimited retries per request. */
export function bullConnection(redisUrl: string, name: string): Redis {
  return new Redis(redisUrl, { maxRetriesPerRequest: null, connectionName: name });
}

/**
 * Scaled mode: task work goes to the BullMQ queue {@link EDIT_QUEUE}, run by the worker app (TaskWorker).
 * Job ids are deterministic, so adding an item again while its job exists adds nothing; transient failures are
 * retried TASK_ATTEMPTS times with exponential backoff from TASK_RETRY_DELAY_MS.
 */
@Injectable()
export class BullMqTaskQueue extends DurableTaskQueue implements OnApplicationShutdown {
  private readonly logger = new Logger(BullMqTaskQueue.name);
  readonly queue: Queue;
  private readonly connection: Redis;

  constructor(@Inject(AppConfig) private readonly config: AppConfig) {
    super();
    this.connection = bullConnection(config.redisUrl!, 'atelier-queue');
    this.queue = new Queue(EDIT_QUEUE, { connection: this.connection, prefix: config.redisPrefix });
    this.queue.on('error', (error) => this.logger.error(`queue: ${error.message}`));
    setQueueSource(this.depth);
  }

  /** The queue's depth for the metrics (atelier_queue_jobs, atelier_queue_oldest_waiting_seconds). */
  private readonly depth = async (): Promise<QueueSnapshot> => {
    const [counts, oldest] = await Promise.all([
      this.queue.getJobCounts('waiting', 'active', 'delayed', 'failed'),
      this.queue.getJobs(['waiting'], 0, 0, true),
    ]);
    const queued = oldest[0]?.timestamp;
    return {
      jobs: {
        waiting: counts.waiting ?? 0,
        active: counts.active ?? 0,
        delayed: counts.delayed ?? 0,
        failed: counts.failed ?? 0,
      },
      oldestWaitingSeconds: queued === undefined ? 0 : Math.max(0, (Date.now() - queued) / 1000),
    };
  };

  private options(jobId: string): JobsOptions {
    return {
      jobId,
      attempts: this.config.taskAttempts,
      backoff: { type: 'exponential', delay: this.config.taskRetryDelayMs },
      removeOnComplete: { age: 86_400, count: 100_000 },
      removeOnFail: { age: 7 * 86_400 },
    };
  }

  async start(taskId: number): Promise<void> {
    await this.addOne(TaskJobs.expand, taskId, taskJobId.expand(taskId));
  }

  async addItems(taskId: number, seqs: number[]): Promise<void> {
    if (seqs.length === 0) return;
    const job = { name: TaskJobs.item, taskId, count: seqs.length };
    await sendJobs(BULLMQ, job, (traceparent) =>
      this.queue.addBulk(
        seqs.map((seq) => ({
          name: TaskJobs.item,
          data: { taskId, seq, ...(traceparent && { traceparent }) } satisfies ItemJob,
          opts: this.options(taskJobId.item(taskId, seq)),
        })),
      ),
    );
  }

  async deliverWebhook(taskId: number): Promise<void> {
    await this.addOne(TaskJobs.webhook, taskId, taskJobId.webhook(taskId));
  }

  /**
   * Whether the queue has no job of this id in any state (waiting, delayed, active, completed or failed): work added
   * and lost with Redis' data. A completed job is kept a day (at most 100,000 of them), a failed one a week.
   */
  async lacks(jobId: string): Promise<boolean> {
    return (await this.queue.getJobState(jobId)) === 'unknown';
  }

  /**
   * Takes the lease `name` (a key beside the queue's) for `ms` milliseconds unless a process holds it: one Redis
   * SET NX PX, so that of many processes asking at once exactly one gets it. Never released early: it also spaces
   * out what it guards.
   */
  async lease(name: string, ms: number): Promise<boolean> {
    return (await this.connection.set(this.queue.toKey(name), String(process.pid), 'PX', ms, 'NX')) === 'OK';
  }

  private async addOne(name: string, taskId: number, jobId: string): Promise<void> {
    await sendJobs(BULLMQ, { name, taskId, count: 1 }, (traceparent) =>
      this.queue.add(name, { taskId, ...(traceparent && { traceparent }) } satisfies ExpandJob, this.options(jobId)),
    );
  }

  /** Closed in the last shutdown phase: the work drained before it (beforeApplicationShutdown) still uses it. */
  async onApplicationShutdown(): Promise<void> {
    clearQueueSource(this.depth);
    await this.queue.close();
    this.connection.disconnect();
  }
}
