import { Inject, Injectable, Logger, Optional, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { ModelCapabilities, type ModelCapability } from '@app/editing';
import { GenerativeBackend } from '@app/image-pipeline';
import type { ModelRunner, ModelState } from './model-runner';
import { FaceApiDetector } from './faces/face-detector.model';
import { U2NetSegmenter } from './segmentation/segmentation.model';
import { EsrganSuperResolver } from './super-resolution/super-resolution.model';
import { PpOcrTextDetector } from './text/text-detection.model';

/**
 * Which vision models this process runs, and their state. Each model's file is verified once, at start
 * (onModuleInit, before the app listens): a missing or wrong file is logged naming it, and the operations that
 * need the model answer 501. Verified models load at their first use. `generative` is available where
 * libs/generative provides the pipeline's GenerativeBackend port (GenerativeModule).
 */
@Injectable()
export class VisionCapabilities extends ModelCapabilities implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('Vision');
  private readonly runners: Partial<Record<ModelCapability, ModelRunner>>;
  private readonly installed = new Set<ModelCapability>();

  constructor(
    segmenter: U2NetSegmenter,
    faces: FaceApiDetector,
    textDetector: PpOcrTextDetector,
    superResolver: EsrganSuperResolver,
    @Optional() @Inject(GenerativeBackend) generative?: GenerativeBackend,
  ) {
    super();
    if (generative) this.installed.add('generative');
    this.runners = {
      segmentation: segmenter.runner,
      'face-detection': faces.runner,
      'text-detection': textDetector.runner,
      'super-resolution': superResolver.runner,
    };
  }

  async onModuleInit(): Promise<void> {
    await Promise.all(
      Object.entries(this.runners).map(async ([capability, runner]) => {
        if (await runner.verify()) this.installed.add(capability as ModelCapability);
        else this.logger.warn(`${runner.name} is not installed: ${runner.reason}`);
      }),
    );
  }

  available(capability: ModelCapability): boolean {
    return this.installed.has(capability);
  }

  /** Each vision model by name, with its state (model-runner.ts: ModelState). */
  models(): Record<string, ModelState> {
    return Object.fromEntries(Object.values(this.runners).map((runner) => [runner.name, runner.state]));
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(Object.values(this.runners).map((runner) => runner.close()));
  }
}
