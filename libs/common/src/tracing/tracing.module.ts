import { Global, Injectable, Module, type OnApplicationShutdown } from '@nestjs/common';
import { stopTracing } from './tracing';

/** Sends the spans still buffered when the application shuts down (after the work it drained). */
@Injectable()
export class TracingFlush implements OnApplicationShutdown {
  async onApplicationShutdown(): Promise<void> {
    await stopTracing();
  }
}

/** Imported by the API and the worker apps: tracing itself is started by their main.ts, before Nest. */
@Global()
@Module({ providers: [TracingFlush] })
export class TracingModule {}
