import { Global, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '@app/common';
import { GenerativeBackend } from '@app/image-pipeline';
import { createBackend } from './backend.factory';
import { closePixelPrep } from './http/pixel-prep';
import { LocalBackend } from './local/local.backend';

/** Closes the local backend's and the HTTP adapters' threads in the last shutdown phase, after the work drained. */
class GenerativeThreadsCloser implements OnApplicationShutdown {
  constructor(@Inject(LocalBackend) private readonly local: LocalBackend) {}

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([this.local.close(), closePixelPrep()]);
  }
}

/**
 * The generative backend behind the pipeline's {@link GenerativeBackend} port (scenes, outpaint, style transfer),
 * made from the configuration by backend.factory.ts. Global, imported once by each app (API and worker), as
 * VisionModule is: the pipeline consumes the port and must not import this library.
 */
@Global()
@Module({
  providers: [
    {
      provide: 'GENERATIVE_BACKENDS',
      useFactory: (config: AppConfig) => createBackend(config),
      inject: [AppConfig],
    },
    {
      provide: GenerativeBackend,
      useFactory: (made: ReturnType<typeof createBackend>) => made.backend,
      inject: ['GENERATIVE_BACKENDS'],
    },
    {
      provide: LocalBackend,
      useFactory: (made: ReturnType<typeof createBackend>) => made.local,
      inject: ['GENERATIVE_BACKENDS'],
    },
    GenerativeThreadsCloser,
  ],
  exports: [GenerativeBackend],
})
export class GenerativeModule {}
