import { Inject, Injectable } from '@nestjs/common';
import { AppConfig, ServiceException } from '@app/common';
import { estimatePixelMemory, ImagePipeline, type ImageProbe, type PipelineResult } from '@app/image-pipeline';
import { readWhole, SafeFetcher, StorageResolver, type ReserveBytes, type ResolvedReference } from '@app/storage';
import { EditAdmission, type InputHold } from './admission/edit-admission';
import type { EditRequest } from './edit-request.model';
import { planEdit, type PlanContext } from './edit-planner';
import { toImageError } from './image-errors';
import { imageInfo, type ImageInfo, type OutputImageInfo } from './image-info';
import { ModelCapabilities } from './model-capabilities';
import { NO_FACE_FOUND, type EditNotice } from './privacy-plan';
import { formatOfPath, ResultWriter } from './results/result-writer';

/** An input image in memory with the name its results take in folders. */
export interface EditSource {
  bytes: Buffer;
  /** File name (last path segment of the URL or reference, or the uploaded file's name). */
  name: string;
}

/** An uploaded input, with the hold on the input budget it was admitted with (released when the edit ends). */
export interface EditUpload extends EditSource {
  hold?: InputHold;
}

/** Who asks: the account whose storages are used, and the holder whose share of the budgets it counts to. */
export interface EditCaller {
  accountId: number;
  /** One API key (or, for tasks, one account): see {@link EditAdmission}. */
  holder: string;
}

export interface EditResult {
  input: ImageInfo;
  output: OutputImageInfo;
  /** Present when an operation asked for left the image as it was (identity_crop without a face: NO_FACE_FOUND). */
  notices?: EditNotice[];
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
    private readonly resolver: StorageResolver,
    private readonly fetcher: SafeFetcher,
    private readonly results: ResultWriter,
    private readonly admission: EditAdmission,
    private readonly capabilities: ModelCapabilities,
  ) {}

  /**
   * Reading the input holds only its bytes, in the input budget (EditAdmission); the pixel work then waits
   * for a slot and its estimated memory. The result is written after both are given back.
   */
  async execute(caller: EditCaller, request: EditRequest, upload?: EditUpload): Promise<EditResult> {
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
        : await this.load(accountId, request.input ?? '', hold.reserve);
      edited = await this.edit(holder, request, source, destination);
    } finally {
      hold.release();
    }
    const { probe, result, name, notices } = edited;
    return {
      input: imageInfo(probe.format, probe.displayWidth, probe.displayHeight),
      output: await this.results.write(result, destination, name),
      ...(notices.length > 0 && { notices }),
    };
  }

  /**
   * Header -> plan -> pixel work, admitted against the pixel budget with the plan's estimated memory. With
   * identity_crop the faces are found first (at the model's resolution) and the edit planned again from them, so
   * that every step after the crop is sized from the cropped image; the first plan's checks (422, 501) come
   * before any pixel is decoded, and the uncut plan bounds the memory.
   */
  private async edit(holder: string, request: EditRequest, source: EditSource, destination?: ResolvedReference) {
    const probe = await this.probe(source.bytes);
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
    const result = await this.admission.runPixels(holder, estimatePixelMemory(probe, plan), label, async () => {
      try {
        if (request.operations.privacy?.identity_crop) {
          const faces = await this.pipeline.findFaces(source.bytes, probe);
          if (faces.length === 0) notices.push(NO_FACE_FOUND);
          plan = planEdit(request, probe, { ...planContext, faces });
        }
        return await this.pipeline.run(source.bytes, probe, plan, replan);
      } catch (error) {
        throw toImageError(error);
      }
    });
    return { probe, result, name: source.name, notices };
  }

  private async probe(bytes: Buffer): Promise<ImageProbe> {
    try {
      return await this.pipeline.probe(bytes);
    } catch (error) {
      throw toImageError(error);
    }
  }

  /**
   * Downloads a URL (SafeFetcher: address policy, timeouts, size cap) or reads a storage object (size cap),
   * holding its bytes in the input budget through `reserve` as they arrive.
   */
  private async load(accountId: number, input: string, reserve: ReserveBytes): Promise<EditSource> {
    if (!input.startsWith('storage://')) {
      // named after the URL the client gave, not where redirects led
      const download = await this.fetcher.download(input, { reserve });
      return { bytes: download.buffer, name: fileName(urlPathName(input)) };
    }
    const resolved = await this.resolver.resolve(accountId, input, 'input');
    if (resolved.isFolder) {
      throw ServiceException.validation({ input: ['input must name a file, not a folder (ending in "/")'] });
    }
    const object = await resolved.driver.read(resolved.path);
    const bytes = await readWhole(object.stream, this.config.fetchMaxBytes, input, object.size, reserve);
    return { bytes, name: fileName(resolved.path) };
  }
}

/** The last path segment of a URL, percent-decoded where it decodes. */
function urlPathName(url: string): string {
  const segment = new URL(url).pathname.split('/').filter(Boolean).pop() ?? '';
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * The one rule for the name a result takes in a folder, from a URL's segment, a storage path or an uploaded
 * file's name: the last segment, without control characters; `image` when nothing usable is left.
 */
function fileName(raw: string): string {
  const name = (raw.split(/[\\/]/).pop() ?? '').replace(/[\u0000-\u001f\u007f]/g, '_').trim();
  return name === '' || name === '.' || name === '..' ? 'image' : name;
}
