import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import sharp from 'sharp';
import { AppConfig } from '@app/common';
import { assertPixelLimit, probeImage, type ImageProbe } from './decode/probe';
import { decodeError, openInput } from './decode/decode-input';
import type { EditPlan, OutputFormat } from './edit-plan';
import { adjust } from './operations/adjust.operation';
import { flattenOnto } from './operations/flatten.operation';
import { encode, usesSourceProfile, type SourceColour } from './operations/encode.operation';
import { ProfileFiles } from './colour/profile-files';
import { pad } from './operations/padding.operation';
import { resize } from './operations/resize.operation';
import { decompress, resolveDecompress } from './operations/restore.operation';
import { materialize, type StageImage } from './operations/stage';
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
 * any pixel is decoded; `run` applies an {@link EditPlan} in the order of docs/image-editing.md:
 * decode (EXIF orientation) -> decompress -> background flatten -> padding -> resize -> adjustments -> encode.
 */
@Injectable()
export class ImagePipeline implements OnApplicationShutdown {
  private readonly pool = new PixelPool();
  private readonly profiles = new ProfileFiles();
  private readonly threads = new ThreadShare(sharp.concurrency());

  constructor(@Inject(AppConfig) private readonly config: AppConfig) {
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
    const source = await openInput(bytes, probe, this.pool, this.config.maxInputPixels);
    let stage: StageImage = {
      image: sharp(source.input, source.options).autoOrient(),
      width: probe.displayWidth,
      height: probe.displayHeight,
      hasAlpha: probe.hasAlpha,
      fresh: true,
    };
    // 16-bit pixels (and sharp's Display P3 working space for them) become 8-bit sRGB before any operation
    // whose constants assume 0..255 sRGB values; a plain resize and encode keep the fast single pipeline.
    const wide = probe.space === 'rgb16' || probe.space === 'grey16';
    if (wide && (plan.decompress || plan.flatten || plan.padding || plan.adjust)) stage = await materialize(stage);
    const strength = plan.decompress && resolveDecompress(plan.decompress, bytes);
    if (strength) stage = await decompress(stage, strength, this.pool);
    if (plan.flatten) stage = await flattenOnto(stage, plan.flatten);
    if (plan.padding && plan.paddingFill) stage = await pad(stage, plan.padding, plan.paddingFill);
    if (plan.resize) stage = await resize(stage, plan.resize);
    if (plan.adjust) stage = await adjust(stage, plan.adjust, this.pool);
    const ownProfile = probe.icc && usesSourceProfile(plan.colour, plan.encode, probe.space);
    const colour: SourceColour = {
      space: probe.space,
      iccPath: ownProfile ? await this.profiles.path(probe.icc!) : undefined,
    };
    const output = encode(stage.image, plan, colour);
    const { data, info } = await output.toBuffer({ resolveWithObject: true });
    return { data, format: plan.encode.format, width: info.width, height: info.height };
  }

  /** Closed in the last shutdown phase: the work drained before it (beforeApplicationShutdown) still uses it. */
  async onApplicationShutdown(): Promise<void> {
    await this.pool.close();
    await this.profiles.close();
  }
}
