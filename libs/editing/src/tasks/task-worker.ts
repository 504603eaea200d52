import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { DelayedError, UnrecoverableError, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { AppConfig } from '@app/common';
import { EDIT_QUEUE } from '../queue.constants';
import { BULLMQ, bullConnection } from './bullmq-task-queue';
import { ABANDONED_MESSAGES, failureMessage } from './task-failure';
import { TaskJobs, type ExpandJob, type ItemJob } from './task-queue';
import { TaskRunner, type ItemRun } from './task-runner';
import { processJob } from './task-tracing';

/**
 * The worker app's BullMQ consumer of {@link EDIT_QUEUE}: TASK_CONCURRENCY jobs at once, each a call to
 * TaskRunner. A job that throws is retried by BullMQ (attempts and backoff set when it was added); its last
 * attempt records the failure instead of throwing. A killed worker's jobs are found stalled once their lock
 * (WORKER_LOCK_MS) runs out and run again; TaskRunner makes that harmless. Shutdown stops taking jobs and
 * waits for the ones in hand.
 */
@Injectable()
export class TaskWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(TaskWorker.name);
  private worker?: Worker;
  private connection?: Redis;
  /** Jobs being run now: what a shutdown waits for. */
  private inHand = 0;

  constructor(
    @Inject(AppConfig) private readonly config: AppConfig,
    private readonly runner: TaskRunner,
  ) {}

  onApplicationBootstrap(): void {
    this.connection = bullConnection(this.config.redisUrl!, 'atelier-worker');
    this.worker = new Worker(EDIT_QUEUE, (job, token) => this.process(job, token), {
      connection: this.connection,
      prefix: this.config.redisPrefix,
      concurrency: this.config.taskConcurrency,
      lockDuration: this.config.workerLockMs,
      stalledInterval: this.config.workerLockMs,
      maxStalledCount: 3,
    });
    this.worker.on('error', (error) => this.logger.error(`worker: ${error.message}`));
    // A job that stalled more than maxStalledCount times (its worker died running it each time) is failed by
    // BullMQ when a worker next takes it, without running it (`deferredFailure`): TaskRunner must record that.
    this.worker.on('failed', (job) => {
      if (job?.deferredFailure) void this.abandon(job);
    });
  }

  /** Records a job BullMQ gave up after its workers died running it: its item FAILED, or its task ERROR. */
  private async abandon(job: Job): Promise<void> {
    this.logger.warn(`job ${job.id}: given up after its worker stopped ${job.stalledCounter} times while running it`);
    if (job.name === TaskJobs.webhook) return;
    const { taskId, seq } = job.data as ItemJob;
    try {
      if (job.name === TaskJobs.item) await this.runner.abandon(taskId, seq, ABANDONED_MESSAGES.item);
      else await this.runner.abandon(taskId, undefined, ABANDONED_MESSAGES.listing);
    } catch (error) {
      this.logger.error(`job ${job.id}: its end could not be recorded: ${failureMessage(error)}`);
    }
  }

  /** Resolves once the worker is connected and taking jobs. */
  async waitUntilReady(): Promise<void> {
    await this.worker?.waitUntilReady();
  }

  async process(job: Job, token?: string): Promise<void> {
    this.inHand += 1;
    try {
      const { taskId, seq, traceparent } = job.data as Partial<ItemJob>;
      const traced = { name: job.name, id: job.id, taskId: taskId ?? 0, seq, attempt: job.attemptsMade + 1 };
      const run = await processJob(BULLMQ, { ...traced, traceparent }, () => this.run(job));
      if (run === 'deferred') {
        // Its task is PAUSED: the job waits, delayed, for a probe interval; not counted as an attempt.
        await job.moveToDelayed(Date.now() + this.config.taskStoreProbeMs, token);
        throw new DelayedError();
      }
    } catch (error) {
      if (error instanceof DelayedError) throw error;
      // Only a run that BullMQ will repeat (a transient failure before the last attempt) or a broken job
      // throws; the last attempt of an item records its failure instead.
      this.logger.warn(`job ${job.id}: attempt ${job.attemptsMade + 1} failed: ${failureMessage(error)}`);
      throw error;
    } finally {
      this.inHand -= 1;
    }
  }

  private async run(job: Job): Promise<ItemRun | void> {
    const final = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    switch (job.name) {
      case TaskJobs.expand:
        return this.runner.expand((job.data as ExpandJob).taskId, final);
      case TaskJobs.item: {
        const { taskId, seq } = job.data as ItemJob;
        return this.runner.runItem(taskId, seq, final);
      }
      case TaskJobs.webhook:
        return this.runner.deliverWebhook((job.data as ExpandJob).taskId, final);
      default:
        this.logger.error(`job ${job.id} has the unknown name "${job.name}"`);
        throw new UnrecoverableError(`unknown job name "${job.name}"`);
    }
  }

  /**
   * Stops taking jobs and waits for those in hand (they complete or fail as usual, so none is left locked);
   * runs before the resources they use are closed (onApplicationShutdown). A process killed before they are
   * done leaves them to the stalled-job check.
   */
  async beforeApplicationShutdown(): Promise<void> {
    const began = Date.now();
    this.logger.log(`Stopping: no new jobs; finishing the ${this.inHand} in hand`);
    await this.worker?.close();
    this.connection?.disconnect();
    this.logger.log(`Stopped taking jobs; those in hand finished in ${Date.now() - began} ms`);
  }
}
