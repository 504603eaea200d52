import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type BeforeApplicationShutdown,
} from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { activeTraceparent, AppConfig } from '@app/common';
import { TaskRows } from '@app/database';
import { TaskJobs, TaskQueue } from './task-queue';
import { TaskRunner } from './task-runner';
import { processJob, type TracedJob } from './task-tracing';

interface ItemWork {
  taskId: number;
  seq: number;
  /** Runs started so far. */
  attempts: number;
  /** The trace context of the work that queued it (task-tracing.ts). */
  traceparent?: string;
}

/** `messaging.system` of the spans of this queue. */
const IN_PROCESS = 'in-process';

/** Longest a shutdown waits for the items being edited; unfinished ones stay pending for the next start. */
const SHUTDOWN_GRACE_MS = 30_000;

/**
 * Embedded mode (no REDIS_URL): the API process runs task work itself, TASK_CONCURRENCY items at a time, first
 * queued first run. Listings and webhooks run beside the items. What waits here is bounded by the scheduler
 * (TaskScheduler: a few items per account, the rest wait in the database), so a large folder is never held in
 * memory and one account's batch never holds up another's (items waiting for a retry hold no place there: each
 * is a timer here, an object of a few fields). Transient failures are retried like BullMQ retries them; an item of
 * a PAUSED task looks again every TASK_STORE_PROBE_MS, without a slot. At start,
 * tasks a restart interrupted resume: their listing runs again (it records nothing twice) and their pending
 * items are queued again; items that were final stay as they were.
 */
@Injectable()
export class InProcessTaskQueue extends TaskQueue implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(InProcessTaskQueue.name);
  private readonly waiting: ItemWork[] = [];
  /** Items waiting or running (`taskId:seq`): adding one again adds nothing, as a BullMQ job id does. */
  private readonly inHand = new Set<string>();
  /** Items being edited (at most TASK_CONCURRENCY). */
  private readonly running = new Set<Promise<void>>();
  /** Listings and webhooks in progress. */
  private readonly side = new Set<Promise<void>>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private stopping = false;

  constructor(
    @Inject(AppConfig) private readonly config: AppConfig,
    private readonly moduleRef: ModuleRef,
    private readonly store: TaskRows,
  ) {
    super();
  }

  private get runner(): TaskRunner {
    return this.moduleRef.get(TaskRunner, { strict: false });
  }

  onApplicationBootstrap(): void {
    void this.store.unfinished().then(
      (ids) => {
        if (ids.length > 0) this.logger.log(`resuming ${ids.length} unfinished task(s)`);
        for (const id of ids) void this.start(id);
      },
      (error: unknown) => this.logger.error(`cannot resume tasks: ${String(error)}`),
    );
  }

  async start(taskId: number): Promise<void> {
    const job = { name: TaskJobs.expand, taskId, traceparent: activeTraceparent() };
    this.background(`task ${taskId} listing`, job, (final) => this.runner.expand(taskId, final));
  }

  async addItems(taskId: number, seqs: number[]): Promise<void> {
    const traceparent = activeTraceparent();
    for (const seq of seqs) {
      const key = `${taskId}:${seq}`;
      if (this.inHand.has(key)) continue;
      this.inHand.add(key);
      this.waiting.push({ taskId, seq, attempts: 0, traceparent });
    }
    this.pump();
  }

  async deliverWebhook(taskId: number): Promise<void> {
    const job = { name: TaskJobs.webhook, taskId, traceparent: activeTraceparent() };
    this.background(`task ${taskId} webhook`, job, (final) => this.runner.deliverWebhook(taskId, final));
  }

  /** Stops taking work, waits for the items being edited (up to a grace period); the rest stays pending. */
  async beforeApplicationShutdown(): Promise<void> {
    const began = Date.now();
    this.stopping = true;
    this.waiting.length = 0;
    this.inHand.clear();
    for (const timer of this.timers) clearTimeout(timer);
    this.logger.log(`Stopping: no new items; finishing the ${this.running.size} in hand`);
    const all = Promise.allSettled([...this.running, ...this.side]).then(() => true);
    const grace = new Promise<false>((resolve) => setTimeout(() => resolve(false), SHUTDOWN_GRACE_MS).unref());
    const finished = await Promise.race([all, grace]);
    this.logger.log(
      finished
        ? `Stopped; the items in hand finished in ${Date.now() - began} ms`
        : `Stopped after ${SHUTDOWN_GRACE_MS} ms with items unfinished; they resume at the next start`,
    );
  }

  private pump(): void {
    while (!this.stopping && this.running.size < this.config.taskConcurrency && this.waiting.length > 0) {
      const work = this.waiting.shift()!;
      const run = this.runItem(work).finally(() => {
        this.running.delete(run);
        this.pump();
      });
      this.running.add(run);
    }
  }

  private async runItem(work: ItemWork): Promise<void> {
    work.attempts += 1;
    const final = work.attempts >= this.config.taskAttempts;
    try {
      const job = { ...work, name: TaskJobs.item, attempt: work.attempts };
      const run = await processJob(IN_PROCESS, job, () => this.runner.runItem(work.taskId, work.seq, final));
      if (run === 'deferred') {
        // Its task is PAUSED: a look, not an attempt; it looks again after a probe interval, without a slot.
        work.attempts -= 1;
        this.after(this.config.taskStoreProbeMs, () => this.requeue(work));
        return;
      }
      this.inHand.delete(`${work.taskId}:${work.seq}`);
    } catch (error) {
      this.logger.warn(
        `task ${work.taskId} item ${work.seq}: attempt ${work.attempts} failed, retrying: ${String(error)}`,
      );
      this.later(work.attempts, () => this.requeue(work));
    }
  }

  private requeue(work: ItemWork): void {
    this.waiting.push(work);
    this.pump();
  }

  /** Runs a listing or a webhook outside the item slots, retrying transient failures with backoff. */
  private background(
    label: string,
    job: Omit<TracedJob, 'attempt'>,
    run: (finalAttempt: boolean) => Promise<void>,
    attempt = 1,
  ): void {
    if (this.stopping) return;
    const final = attempt >= this.config.taskAttempts;
    const running = processJob(IN_PROCESS, { ...job, attempt }, () => run(final))
      .catch((error: unknown) => {
        this.logger.warn(`${label}: attempt ${attempt} failed${final ? '' : ', retrying'}: ${String(error)}`);
        if (!final) this.later(attempt, () => this.background(label, job, run, attempt + 1));
      })
      .finally(() => this.side.delete(running));
    this.side.add(running);
  }

  /** Runs `run` after the backoff of a retry of `attempt` (TASK_RETRY_DELAY_MS, doubled for each later one). */
  private later(attempt: number, run: () => void): void {
    this.after(this.config.taskRetryDelayMs * 2 ** (attempt - 1), run);
  }

  private after(ms: number, run: () => void): void {
    if (this.stopping) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      run();
    }, ms);
    timer.unref();
    this.timers.add(timer);
  }
}
