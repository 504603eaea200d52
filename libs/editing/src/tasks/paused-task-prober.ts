import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { AppConfig } from '@app/common';
import { TaskRows, type EditTaskEntity } from '@app/database';
import { StorageResolver, TemporaryBucket } from '@app/storage';
import { failureMessage, isTransient } from './task-failure';
import { pauseExpiredMessage } from './output-store-breaker';
import { requestOf, TaskRunner } from './task-runner';
import { TaskScheduler } from './task-scheduler';

/** Paused tasks read per page. */
const PAGE = 100;

/**
 * Ends the pause of PAUSED tasks (docs/batch.md, "When the output store is down"), in every process that runs task
 * work (a worker; the API in embedded mode): every TASK_STORE_PROBE_MS it probes the output store of each (the
 * store's own reachability check, StorageDriver.check), once per store a pass. When the store answers (or refuses
 * for good: its items then fail with their own errors), the task goes back to PROCESSING and its account is
 * topped up; its items waiting in the queue run at their next look (TaskRunner.runItem). A task PAUSED longer than
 * TASK_STORE_PAUSE_MAX_MS ends instead: its images not written fail with one message, and it ends in ERROR.
 * Every step is a conditional update: processes probing side by side at worst probe a store twice.
 */
@Injectable()
export class PausedTaskProber implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(PausedTaskProber.name);
  private timer?: NodeJS.Timeout;
  private pass?: Promise<void>;

  constructor(
    @Inject(AppConfig) private readonly config: AppConfig,
    private readonly store: TaskRows,
    private readonly runner: TaskRunner,
    private readonly scheduler: TaskScheduler,
    private readonly resolver: StorageResolver,
    private readonly temporary: TemporaryBucket,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      this.pass ??= this.probeAll()
        .catch((error: unknown) => this.logger.warn(`probing paused tasks failed: ${failureMessage(error)}`))
        .finally(() => (this.pass = undefined));
    }, this.config.taskStoreProbeMs);
    this.timer.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.pass;
  }

  /** One pass over the PAUSED tasks: each store probed once, each task resumed, left paused, or ended. */
  async probeAll(): Promise<void> {
    const probes = new Map<string, Promise<boolean>>();
    for (let after = 0; ;) {
      const tasks = await this.store.pausedPage(after, PAGE);
      for (const task of tasks) {
        const destination = requestOf(task).edit.output.destination;
        const key = `${task.accountId}\0${destination ?? ''}`;
        let probe = probes.get(key);
        if (!probe) {
          probe = this.answers(task.accountId, destination);
          probes.set(key, probe);
        }
        await this.visit(task, destination, await probe);
      }
      if (tasks.length < PAGE) return;
      after = tasks[tasks.length - 1].id;
    }
  }

  private async visit(task: EditTaskEntity, destination: string | undefined, answers: boolean): Promise<void> {
    const pausedMs = Date.now() - new Date(task.pausedAt ?? Date.now()).getTime();
    if (answers) {
      if (!(await this.store.resume(task.id))) return;
      this.logger.log(`task ${task.id}: its output store answers again; resuming it`);
      await this.scheduler.topUp(task.accountId);
    } else if (pausedMs >= this.config.taskStorePauseMaxMs) {
      this.logger.warn(`task ${task.id}: its output store did not answer for ${pausedMs} ms; ending it`);
      await this.runner.giveUpPaused(task.id, pauseExpiredMessage(destination, this.config.taskStorePauseMaxMs));
    }
  }

  /**
   * Whether the output store answers: its check passes, or fails for a reason that does not pass with time (the
   * storage was deleted, its credentials refused): then the items run and fail with that reason, rather than wait.
   */
  private async answers(accountId: number, destination: string | undefined): Promise<boolean> {
    const timeout = this.config.storageCheckTimeoutMs;
    try {
      if (destination === undefined) await this.temporary.check(timeout);
      else await (await this.resolver.resolve(accountId, destination, 'output.destination')).driver.check(timeout);
      return true;
    } catch (error) {
      return !isTransient(error);
    }
  }
}
