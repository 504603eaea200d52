import { Global, Injectable, Logger, Module, type OnApplicationShutdown } from '@nestjs/common';
import { stopTracing } from './tracing';

/** Sends the spans still buffered when the application shuts down (after the work it drained). */
@Injectable()
export class TracingFlush implements OnApplicationShutdown {
  private readonly logger = new Logger('Tracing');

  async onApplicationShutdown(): Promise<void> {
    // The exporter's error is not logged: it can quote the endpoint, whose URL may carry credentials.
    if (!(await stopTracing())) this.logger.warn('the last spans could not be sent to the OTLP endpoint');
  }
}

/** Imported by the API and the worker apps: tracing itself is started by their main.ts, before Nest. */
@Global()
@Module({ providers: [TracingFlush] })
export class TracingModule {}
