import { Global, Module } from '@nestjs/common';
import { ModelCapabilities } from '@app/editing';
import { VisionCapabilities } from './vision-capabilities';

/**
 * The model runners, and the {@link ModelCapabilities} port that editing declares. Global, imported once by each
 * app (API and worker): EditingModule consumes the port but must not import this library, which depends on it.
 * An app that forgets it does not start (Nest cannot resolve EditExecutor).
 */
@Global()
@Module({
  providers: [VisionCapabilities, { provide: ModelCapabilities, useExisting: VisionCapabilities }],
  exports: [ModelCapabilities],
})
export class VisionModule {}
