import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';

/** Says when the worker has closed its queue connections after a stop signal. */
@Injectable()
export class ShutdownLogger implements OnApplicationShutdown {
  private readonly logger = new Logger('Worker');

  onApplicationShutdown(signal?: string): void {
    this.logger.log(`Atelier worker stopped${signal ? ` (${signal})` : ''}`);
  }
}
