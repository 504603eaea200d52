import { Inject, Injectable, OnApplicationShutdown, Optional } from '@nestjs/common';
import sharp from 'sharp';
import { AppConfig } from '@app/common';
import { assertPixelLimit, probeImage, type ImageProbe } from './decode/probe';
import { decodeError } from './decode/decode-input';
import type { EditPlan, OutputFormat } from './edit-plan';
import { ProfileFiles } from './colour/profile-files';
import { runSteps } from './pipeline-steps';
import { Segmenter } from './ports/segmenter.port';
import { SuperResolver } from './ports/super-resolver.port';
import { PixelPool } from './workers/pixel-pool';
import { ThreadShare } from './workers/thread-share';

/** An encoded result with what its bytes are. */
export interface PipelineResult {
  data: Buffer;
  format: OutputFormat;
  width: number;
  height: number;
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

  /** `segmenter`, `superResolver`: provided globally by libs/vision where their models are installed. */
  constructor(
    @Inject(AppConfig) private readonly config: AppConfig,
    @Optional() @Inject(Segmenter) private readonly segmenter?: Segmenter,
    @Optional() @Inject(SuperResolver) private readonly superResolver?: SuperResolver,
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

  async run(bytes: Buffer, probe: ImageProbe, plan: EditPlan): Promise<PipelineResult> {
    sharp.concurrency(this.threads.enter());
    try {
      return await this.process(bytes, probe, plan);
    } catch (error) {
      throw decodeError(error, { probe, maxPixels: this.config.maxInputPixels });
    } finally {
      this.threads.leave();
    }
  }

  private async process(bytes: Buffer, probe: ImageProbe, plan: EditPlan): Promise<PipelineResult> {
    const context = {
      bytes,
      probe,
      plan,
      pool: this.pool,
      profiles: this.profiles,
      maxPixels: this.config.maxInputPixels,
      segmenter: this.segmenter,
      superResolver: this.superResolver,
    };
    const stage = await runSteps(context);
    const { data, info } = await stage.image.toBuffer({ resolveWithObject: true });
    return { data, format: plan.encode.format, width: info.width, height: info.height };
  }

  /** Closed in the last shutdown phase: the work drained before it (beforeApplicationShutdown) still uses it. */
  async onApplicationShutdown(): Promise<void> {
    await this.pool.close();
    await this.profiles.close();
  }
}
