import { Inject, Injectable } from '@nestjs/common';
import { annotateActiveSpan, AppConfig, timedStage } from '@app/common';
import {
  estimatePixelMemory,
  ImagePipeline,
  type EditAssets,
  type GeneratorAnswerLimits,
  type ImageProbe,
  type PipelineResult,
} from '@app/image-pipeline';
import type { ResolvedReference } from '@app/storage';
import { fileName, SourceLoader, type EditSource } from './inputs/source-loader';
import { EditAdmission, type InputHold } from './admission/edit-admission';
import type { EditRequest } from './edit-request.model';
import { planEdit, type PlanContext } from './edit-planner';
import { toImageError } from './image-errors';
import { imageInfo, type ImageInfo, type OutputImageInfo } from './image-info';
import { ModelCapabilities } from './model-capabilities';
import { askedOperations } from './operations';
import { NO_FACE_FOUND, type EditNotice } from './notices';
import { formatOfPath, ResultWriter } from './results/result-writer';

/** An uploaded input, with the hold on the input budget it was admitted with (released when the edit ends). */
export type { EditSource };

export interface EditUpload extends EditSource {
  hold?: InputHold;
}

/** Who asks: the account whose storages are used, and the holder whose share of the budgets it counts to. */
export interface EditCaller {
  accountId: number;
  /** The account, whichever of its keys (or its tasks) asks: see {@link EditAdmission}. */
  holder: string;
}

/**
 * The caller of an edit or scene of an account. The holder of an EDIT_KEY_SHARE is the account, not the key:
 * an account that mints a second key (or starts a task) does not get a second share of a process's budgets.
 */
export function editCaller(accountId: number): EditCaller {
  return { accountId, holder: `account ${accountId}` };
}

export interface EditResult {
  input: ImageInfo;
  output: OutputImageInfo;
  /** Present when an operation asked for left the image as it was (identity_crop without a face: NO_FACE_FOUND). */
  notices?: EditNotice[];
}

/**
 * The limits of an HTTP generator's encoded answer, counted in admission (memory-estimate.ts); undefined for the
 * local backend, which answers pixels of the job's size.
 */
export function generatorAnswerLimits(config: AppConfig): GeneratorAnswerLimits | undefined {
  const { backend, maxResponseBytes } = config.generative;
  if (backend === 'local' || backend === 'none') return undefined;
  return { maxPixels: config.maxInputPixels, responseBytes: maxResponseBytes };
}

/** Whether an operation the request asks for is planned from the faces in the input (EditOperation.findsFaces). */
function findsFaces(request: EditRequest): boolean {
  return askedOperations(request.operations.registered).some(({ operation, value }) => operation.findsFaces?.(value));
}

/**
 * Input -> pipeline -> output -> ImageInfo: the one implementation of an edit, for the API's synchronous
 * routes and for background tasks. Everything that can be refused without the image is refused first
 * (the request, the destination), then the image's header (type, pixel limit), then the plan.
 */
@Injectable()
export class EditExecutor {
  constructor(
    @Inject(AppConfig) private readonly config: AppConfig,
    private readonly pipeline: ImagePipeline,
    private readonly sources: SourceLoader,
    private readonly results: ResultWriter,
    private readonly admission: EditAdmission,
    private readonly capabilities: ModelCapabilities,
  ) {}

  /**
   * Reading the input holds only its bytes, in the input budget (EditAdmission); the pixel work then waits
   * for a slot and its estimated memory. The result is written after both are given back. `signal`: aborted when
   * the client has gone (a synchronous request): no pixel work starts after it, and a generator call under way
   * (outpaint, style transfer) stops, so that the slot is given back.
   */
  async execute(
    caller: EditCaller,
    request: EditRequest,
    upload?: EditUpload,
    signal?: AbortSignal,
  ): Promise<EditResult> {
    const { accountId, holder } = caller;
    const destination = await this.results.destination(
      accountId,
      request.output.destination,
      request.output.format?.type,
    );
    const hold = upload?.hold ?? this.admission.inputHold(holder);
    let edited: { probe: ImageProbe; result: PipelineResult; name: string; notices: EditNotice[] };
    try {
      const source = upload
        ? { bytes: upload.bytes, name: fileName(upload.name) }
        : await timedStage('read', () => this.sources.load(accountId, request.input ?? '', hold.reserve));
      const assets = await this.assets(accountId, request, hold);
      edited = await this.edit(holder, request, source, destination, assets, signal);
    } finally {
      hold.release();
    }
    const { probe, result, name, notices } = edited;
    return {
      input: imageInfo(probe.format, probe.displayWidth, probe.displayHeight),
      output: await timedStage('write', () => this.results.write(result, destination, name)),
      ...(notices.length > 0 && { notices }),
    };
  }

  /**
   * Header -> plan -> pixel work, admitted against the pixel budget with the plan's estimated memory. With
   * identity_crop the faces are found first (at the model's resolution) and the edit planned again from them, so
   * that every step after the crop is sized from the cropped image; the first plan's checks (422, 501) come
   * before any pixel is decoded, and the uncut plan bounds the memory.
   */
  private async edit(
    holder: string,
    request: EditRequest,
    source: EditSource,
    destination: ResolvedReference | undefined,
    assets: EditAssets,
    signal: AbortSignal | undefined,
  ) {
    const probe = await timedStage('probe', async () => {
      const found = await this.probe(source.bytes);
      annotateActiveSpan({
        'atelier.image.format': found.format,
        'atelier.image.width': found.width,
        'atelier.image.height': found.height,
      });
      return found;
    });
    const planContext: PlanContext = {
      maxPixels: this.config.maxInputPixels,
      destinationFormat: destination && !destination.isFolder ? formatOfPath(destination.path) : undefined,
      capabilities: this.capabilities,
    };
    let plan = planEdit(request, probe, planContext);
    // after a crop (background clipping), padding and resizing are sized from what the crop left
    const replan = (size: { width: number; height: number }) =>
      planEdit(request, { ...probe, displayWidth: size.width, displayHeight: size.height }, planContext);
    const notices: EditNotice[] = [];
    const label = `${probe.format} ${probe.width}x${probe.height}`;
    const memory = estimatePixelMemory(probe, plan, generatorAnswerLimits(this.config));
    const result = await this.admission.runPixels(
      holder,
      memory,
      label,
      () =>
        timedStage('pixels', async () => {
          signal?.throwIfAborted();
          try {
            if (findsFaces(request)) {
              const faces = await this.pipeline.findFaces(source.bytes, probe);
              if (faces.length === 0) notices.push(NO_FACE_FOUND);
              plan = planEdit(request, probe, { ...planContext, faces });
            }
            return await this.pipeline.run(source.bytes, probe, plan, { replan, assets, signal });
          } catch (error) {
            throw signal?.aborted ? signal.reason : toImageError(error);
          }
        }),
      signal,
    );
    return { probe, result, name: source.name, notices };
  }

  /** The images the request reads besides its input (a style reference, a watermark's image), in the input budget. */
  private async assets(accountId: number, request: EditRequest, hold: InputHold): Promise<EditAssets> {
    const assets: EditAssets = {};
    const operations: Record<string, Buffer> = {};
    for (const { operation, value } of askedOperations(request.operations.registered)) {
      const asset = operation.asset?.(value);
      if (!asset) continue;
      operations[operation.name] = (
        await this.sources.load(accountId, asset.location, hold.reserve, asset.field)
      ).bytes;
    }
    if (Object.keys(operations).length > 0) assets.operations = operations;
    return assets;
  }

  private async probe(bytes: Buffer): Promise<ImageProbe> {
    try {
      return await this.pipeline.probe(bytes);
    } catch (error) {
      throw toImageError(error);
    }
  }
}
