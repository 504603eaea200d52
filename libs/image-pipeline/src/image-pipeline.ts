import { Inject, Injectable, OnApplicationShutdown, Optional } from '@nestjs/common';
import sharp from 'sharp';
import { AppConfig, ServiceException, timedStage } from '@app/common';
import { assertPixelLimit, probeImage, type ImageProbe } from './decode/probe';
import { decodeError, withJpegWarningsTolerated } from './decode/decode-input';
import type { EditPlan, OutputFormat } from './edit-plan';
import { ProfileFiles } from './colour/profile-files';
import { runSteps } from './pipeline-steps';
import { findFaces } from './operations/identity-crop.operation';
import type { EditAssets, Replan } from './operations/pipeline-step';
import { FaceDetector, type DetectedFace } from './ports/face-detector.port';
import { Segmenter } from './ports/segmenter.port';
import { TextDetector } from './ports/text-detector.port';
import { SuperResolver } from './ports/super-resolver.port';
import { GenerativeBackend } from './ports/generative.port';
import { composeScene, type SceneOutcome, type SceneSource } from './scene/scene-composer';
import type { ScenePlan } from './scene/scene-plan';
import { PixelPool } from './workers/pixel-pool';
import { ThreadShare } from './workers/thread-share';

/** An encoded result with what its bytes are. */
export interface PipelineResult {
  data: Buffer;
  format: OutputFormat;
  width: number;
  height: number;
}

/** What a run may take besides the input and its plan (see {@link ImagePipeline.run}). */
export interface RunOptions {
  replan?: Replan;
  assets?: EditAssets;
  signal?: AbortSignal;
}

/**
 * The one place that runs sharp. `probe` reads the header and refuses images over the pixel limit before
 * any pixel is decoded; `run` applies an {@link EditPlan} step by step, in the order of
 * PIPELINE_STEPS (pipeline-steps.ts).
 */
@Injectable()
export class ImagePipeline implements OnApplicationShutdown {
  private readonly pool = new PixelPool();
  private readonly profiles = new ProfileFiles();
  private readonly threads = new ThreadShare(sharp.concurrency());

  /**
   * `segmenter`, `faces`, `textDetector`, `superResolver`: provided globally by libs/vision where their models
   * are installed.
   */
  constructor(
    @Inject(AppConfig) private readonly config: AppConfig,
    @Optional() @Inject(Segmenter) private readonly segmenter?: Segmenter,
    @Optional() @Inject(FaceDetector) private readonly faces?: FaceDetector,
    @Optional() @Inject(TextDetector) private readonly textDetector?: TextDetector,
    @Optional() @Inject(SuperResolver) private readonly superResolver?: SuperResolver,
    @Optional() @Inject(GenerativeBackend) private readonly generative?: GenerativeBackend,
  ) {
    // libvips' operation cache would keep recent images' pixels for re-use; a service sees each image once.
    sharp.cache(false);
  }

  /** The header of an input, refused (PixelLimitError) when over MAX_INPUT_PIXELS. */
  async probe(bytes: Buffer): Promise<ImageProbe> {
    const probe = await probeImage(bytes);
    assertPixelLimit(probe, this.config.maxInputPixels);
    return probe;
  }

  /**
   * The faces of an input as displayed, in its full-resolution pixels (detected at the model's resolution):
   * what the identity crop is planned from, before the pipeline runs, so that every later step is sized from the
   * cropped image.
   */
  async findFaces(bytes: Buffer, probe: ImageProbe): Promise<DetectedFace[]> {
    const search = { pool: this.pool, maxPixels: this.config.maxInputPixels, detector: this.faces };
    return this.withThreads(probe, () =>
      withJpegWarningsTolerated(probe, (tolerateJpegWarnings) =>
        findFaces(bytes, probe, { ...search, tolerateJpegWarnings }),
      ),
    );
  }

  /**
   * Runs `plan` on the input. `replan` gives the plan for another size of the image entering padding and
   * resizing: a step that crops (background clipping) calls for it, since the planner sized those steps from the
   * whole input. `signal`: the client has gone; a generator call under way stops (outpaint, style transfer).
   */
  async run(bytes: Buffer, probe: ImageProbe, plan: EditPlan, options: RunOptions = {}): Promise<PipelineResult> {
    return this.withThreads(probe, () =>
      withJpegWarningsTolerated(probe, (tolerateJpegWarnings) =>
        this.process(bytes, probe, plan, tolerateJpegWarnings, options),
      ),
    );
  }

  private async process(
    bytes: Buffer,
    probe: ImageProbe,
    plan: EditPlan,
    tolerateJpegWarnings: boolean,
    { replan, assets, signal }: RunOptions,
  ): Promise<PipelineResult> {
    const context = {
      tolerateJpegWarnings,
      bytes,
      probe,
      plan,
      replan,
      pool: this.pool,
      profiles: this.profiles,
      maxPixels: this.config.maxInputPixels,
      segmenter: this.segmenter,
      textDetector: this.textDetector,
      faceDetector: this.faces,
      superResolver: this.superResolver,
      generative: this.generative,
      assets,
      signal,
    };
    const stage = await runSteps(context);
    const { data, info } = await timedStage('encode', () => stage.image.toBuffer({ resolveWithObject: true }));
    return { data, format: plan.encode.format, width: info.width, height: info.height };
  }

  /**
   * The images of a scene (scene/scene-composer.ts): the object placed as `plan` says on the backend's scenes.
   * `signal` ends the work between stages (the request's time limit).
   */
  async createScene(
    object: SceneSource,
    template: SceneSource | undefined,
    plan: ScenePlan,
    signal: AbortSignal,
  ): Promise<SceneOutcome> {
    if (!this.generative) {
      throw new ServiceException('OPERATION_NOT_IMPLEMENTED', 'No generative backend is configured on this service.');
    }
    const resources = {
      pool: this.pool,
      profiles: this.profiles,
      maxPixels: this.config.maxInputPixels,
      segmenter: this.segmenter,
      superResolver: this.superResolver,
      backend: this.generative,
    };
    // either image may be the JPEG whose harmless warnings call for the second try
    const format = template?.probe.format === 'jpeg' ? 'jpeg' : object.probe.format;
    return this.withThreads(object.probe, () =>
      withJpegWarningsTolerated({ format }, (tolerateJpegWarnings) =>
        composeScene(object, template, plan, { ...resources, tolerateJpegWarnings }, signal),
      ),
    );
  }

  /**
   * Pixel work with its share of libvips' threads (ThreadShare), its decoder failures told as image errors of the
   * probed input.
   */
  private async withThreads<T>(probe: ImageProbe, work: () => Promise<T>): Promise<T> {
    sharp.concurrency(this.threads.enter());
    try {
      return await work();
    } catch (error) {
      throw decodeError(error, { probe, maxPixels: this.config.maxInputPixels });
    } finally {
      this.threads.leave();
    }
  }

  /** Closed in the last shutdown phase: the work drained before it (beforeApplicationShutdown) still uses it. */
  async onApplicationShutdown(): Promise<void> {
    await this.pool.close();
    await this.profiles.close();
  }
}
