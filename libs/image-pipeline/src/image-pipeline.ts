import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { AppConfig } from '@app/common';
import { assertPixelLimit, probeImage, type ImageProbe } from './decode/probe';
import { decodeError, openInput } from './decode/decode-input';
import type { EditPlan, OutputFormat } from './edit-plan';
import { adjust } from './operations/adjust.operation';
import { flattenOnto } from './operations/background.operation';
import { encode, type SourceColour } from './operations/encode.operation';
import { pad } from './operations/padding.operation';
import { resize } from './operations/resize.operation';
import { decompress, resolveDecompress } from './operations/restore.operation';
import type { StageImage } from './operations/stage';
import { PixelPool } from './workers/pixel-pool';

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
export class ImagePipeline implements OnModuleDestroy {
  private readonly pool = new PixelPool();
  private readonly profiles = new Map<string, Promise<string>>();

  constructor(@Inject(AppConfig) private readonly config: AppConfig) {}

  /** The header of an input, refused (PixelLimitError) when over MAX_INPUT_PIXELS. */
  async probe(bytes: Buffer): Promise<ImageProbe> {
    const probe = await probeImage(bytes);
    assertPixelLimit(probe, this.config.maxInputPixels);
    return probe;
  }

  async run(bytes: Buffer, probe: ImageProbe, plan: EditPlan): Promise<PipelineResult> {
    try {
      return await this.process(bytes, probe, plan);
    } catch (error) {
      throw decodeError(error, { probe, maxPixels: this.config.maxInputPixels });
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
    const strength = plan.decompress && resolveDecompress(plan.decompress, bytes);
    if (strength) stage = await decompress(stage, strength, this.pool);
    if (plan.flatten) stage = await flattenOnto(stage, plan.flatten);
    if (plan.padding && plan.paddingFill) stage = await pad(stage, plan.padding, plan.paddingFill);
    if (plan.resize) stage = await resize(stage, plan.resize);
    if (plan.adjust) stage = await adjust(stage, plan.adjust, this.pool);
    const colour: SourceColour = { space: probe.space, iccPath: probe.icc && (await this.profileFile(probe.icc)) };
    const output = encode(stage.image, plan, colour);
    const { data, info } = await output.toBuffer({ resolveWithObject: true });
    return { data, format: plan.encode.format, width: info.width, height: info.height };
  }

  /** sharp takes a profile by path: an embedded profile is written once to the temporary folder. */
  private profileFile(icc: Buffer): Promise<string> {
    const name = createHash('sha256').update(icc).digest('hex').slice(0, 32);
    let file = this.profiles.get(name);
    if (!file) {
      const folder = join(tmpdir(), 'atelier-icc');
      const path = join(folder, `${name}.icc`);
      file = mkdir(folder, { recursive: true }).then(() => writeFile(path, icc).then(() => path));
      this.profiles.set(name, file);
    }
    return file;
  }

  async onModuleDestroy(): Promise<void> {
    await this.pool.close();
  }
}
