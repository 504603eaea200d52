import { Global, Module } from '@nestjs/common';
import { AppConfig } from '@app/common';
import { ModelCapabilities } from '@app/editing';
import { FaceDetector, Segmenter, SuperResolver, TextDetector } from '@app/image-pipeline';
import { FaceApiDetector } from './faces/face-detector.model';
import { U2NetSegmenter } from './segmentation/segmentation.model';
import { EsrganSuperResolver } from './super-resolution/super-resolution.model';
import { PpOcrTextDetector } from './text/text-detection.model';
import { VisionCapabilities } from './vision-capabilities';

/**
 * The model runners, behind the ports that their consumers declare: editing's {@link ModelCapabilities} and the
 * image pipeline's {@link Segmenter}, {@link FaceDetector}, {@link TextDetector} and {@link SuperResolver}. Global, imported once by each app (API and worker): EditingModule and the
 * pipeline consume the ports but must not import this library, which depends on them. An app that forgets it
 * does not start (Nest cannot resolve EditExecutor). Needs the global ConfigModule (AppConfig).
 */
@Global()
@Module({
  providers: [
    {
      provide: U2NetSegmenter,
      useFactory: (config: AppConfig) => U2NetSegmenter.fromConfig(config),
      inject: [AppConfig],
    },
    { provide: Segmenter, useExisting: U2NetSegmenter },
    {
      provide: FaceApiDetector,
      useFactory: (config: AppConfig) => FaceApiDetector.fromConfig(config),
      inject: [AppConfig],
    },
    { provide: FaceDetector, useExisting: FaceApiDetector },
    {
      provide: PpOcrTextDetector,
      useFactory: (config: AppConfig) => PpOcrTextDetector.fromConfig(config),
      inject: [AppConfig],
    },
    { provide: TextDetector, useExisting: PpOcrTextDetector },
    {
      provide: EsrganSuperResolver,
      useFactory: (config: AppConfig) => EsrganSuperResolver.fromConfig(config),
      inject: [AppConfig],
    },
    { provide: SuperResolver, useExisting: EsrganSuperResolver },
    VisionCapabilities,
    { provide: ModelCapabilities, useExisting: VisionCapabilities },
  ],
  exports: [ModelCapabilities, Segmenter, FaceDetector, TextDetector, SuperResolver, VisionCapabilities],
})
export class VisionModule {}
