import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { AppConfig } from '@app/common';
import { TemporaryBucket } from './temporary-bucket';

/**
 * Deletes expired temporary files every TEMP_SWEEP_INTERVAL_SECONDS. Several API instances may sweep one
 * bucket: deleting is idempotent. A failed sweep is logged and retried at the next tick.
 */
@Injectable()
export class TemporarySweeper implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('TemporaryBucket');
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private readonly stopping = new AbortController();

  constructor(
    private readonly config: AppConfig,
    private readonly bucket: TemporaryBucket,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.tick(), this.config.temporarySweepIntervalSeconds * 1000);
    this.timer.unref();
    void this.tick();
  }

  /** One sweep, unless one is still running. */
  tick(): Promise<void> {
    this.running ??= this.bucket
      .sweep(Date.now(), this.stopping.signal)
      .then((deleted) => {
        if (deleted > 0) this.logger.log(`Deleted ${deleted} expired temporary files`);
      })
      .catch((error: unknown) => this.logger.warn(`Sweeping the temporary bucket failed: ${String(error)}`))
      .finally(() => (this.running = undefined));
    return this.running;
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    this.stopping.abort();
    await this.running;
  }
}
