import { Inject, Injectable } from '@nestjs/common';
import {
  AppConfig,
  isOutputMediaType,
  mediaTypeOfExtension,
  MEDIA_TYPES,
  ServiceException,
  type OutputMediaType,
} from '@app/common';
import { ImagePipeline, type ImageProbe, type PipelineResult } from '@app/image-pipeline';
import { readWhole, SafeFetcher, StorageResolver, TemporaryBucket, type ResolvedReference } from '@app/storage';
import { ConcurrencyGate } from './concurrency-gate';
import type { EditRequest } from './edit-request';
import { assertImplemented, planEdit } from './edit-planner';
import { toImageError } from './image-errors';
import { imageInfo, type ImageInfo, type OutputImageInfo } from './image-info';

/** An input image in memory with the name its results take in folders. */
export interface EditSource {
  bytes: Buffer;
  /** File name (last path segment of the URL or reference, or the uploaded file's name). */
  name: string;
}

export interface EditResult {
  input: ImageInfo;
  output: OutputImageInfo;
}

/**
 * Input -> pipeline -> output -> ImageInfo: the one implementation of an edit, for the API's synchronous
 * routes and for background tasks. Everything that can be refused without the image is refused first
 * (the request, the destination), then the image's header (type, pixel limit), then the plan.
 */
@Injectable()
export class EditExecutor {
  private readonly gate: ConcurrencyGate;

  constructor(
    @Inject(AppConfig) private readonly config: AppConfig,
    private readonly pipeline: ImagePipeline,
    private readonly resolver: StorageResolver,
    private readonly fetcher: SafeFetcher,
    private readonly temporary: TemporaryBucket,
  ) {
    this.gate = new ConcurrencyGate(config.editConcurrency, config.editQueueLimit);
  }

  /**
   * The gate covers reading the input and the pixel work, so that at most EDIT_CONCURRENCY inputs are held
   * in memory at once (waiting requests hold nothing but their request); the result is written after the
   * slot is given back.
   */
  async execute(accountId: number, request: EditRequest, upload?: EditSource): Promise<EditResult> {
    const destination = await this.destination(accountId, request.output.destination, request.output.format?.type);
    const { probe, result, name } = await this.gate.run(async () => {
      const source = upload
        ? { ...upload, name: fileName(upload.name) }
        : await this.load(accountId, request.input ?? '');
      const probe = await this.probe(source.bytes);
      const plan = planEdit(request, probe, {
        maxPixels: this.config.maxInputPixels,
        destinationFormat: destination && !destination.isFolder ? formatOfPath(destination.path) : undefined,
      });
      assertImplemented(request);
      try {
        return { probe, result: await this.pipeline.run(source.bytes, probe, plan), name: source.name };
      } catch (error) {
        throw toImageError(error);
      }
    });
    return {
      input: imageInfo(probe.format, probe.displayWidth, probe.displayHeight),
      output: await this.write(result, destination, name),
    };
  }

  private async probe(bytes: Buffer): Promise<ImageProbe> {
    try {
      return await this.pipeline.probe(bytes);
    } catch (error) {
      throw toImageError(error);
    }
  }

  /** Downloads a URL (SafeFetcher: address policy, timeouts, size cap) or reads a storage object (size cap). */
  private async load(accountId: number, input: string): Promise<EditSource> {
    if (!input.startsWith('storage://')) {
      // named after the URL the client gave, not where redirects led
      const download = await this.fetcher.download(input);
      return { bytes: download.buffer, name: fileName(urlPathName(input)) };
    }
    const resolved = await this.resolver.resolve(accountId, input, 'input');
    if (resolved.isFolder) {
      throw ServiceException.validation({ input: ['input must name a file, not a folder (ending in "/")'] });
    }
    const object = await resolved.driver.read(resolved.path);
    const bytes = await readWhole(object.stream, this.config.fetchMaxBytes, input, object.size);
    return { bytes, name: fileName(resolved.path) };
  }

  /** The output destination, checked before any work: a writable storage of the caller's account. */
  private async destination(
    accountId: number,
    destination: string | undefined,
    format: string | undefined,
  ): Promise<ResolvedReference | undefined> {
    if (destination === undefined) return undefined;
    const field = 'output.destination';
    if (!destination.startsWith('storage://')) {
      throw ServiceException.validation({
        [field]: [
          'an output destination must be a storage reference (storage://<name>/<path>); URLs cannot be written',
        ],
      });
    }
    const resolved = await this.resolver.resolve(accountId, destination, field);
    const extension = resolved.isFolder ? undefined : mediaTypeOfExtension(extensionOf(resolved.path));
    if (extension && !isOutputMediaType(extension.type)) {
      throw ServiceException.validation({
        [field]: [`.${extensionOf(resolved.path)} files cannot be written; use jpg, png, webp, avif or tiff`],
      });
    }
    const named = extension?.type;
    if (named && format && named !== format) {
      throw ServiceException.validation({
        [field]: [`the file extension names ${named} but output.format is ${format}; make them agree`],
      });
    }
    if (resolved.storage.type === 'web_folder') {
      throw new ServiceException(
        'STORAGE_OPERATION_UNSUPPORTED',
        'A web folder cannot be written to; use an s3 or gcs storage.',
        {
          [field]: ['web folders are read-only'],
        },
      );
    }
    return resolved;
  }

  private async write(
    result: PipelineResult,
    destination: ResolvedReference | undefined,
    inputName: string,
  ): Promise<OutputImageInfo> {
    const { ext, mime } = MEDIA_TYPES[result.format];
    const info = imageInfo(result.format, result.width, result.height);
    if (!destination) {
      const stored = await this.temporary.put(result.data, ext, mime);
      return { ...info, tmp_url: stored.url };
    }
    const path = destination.isFolder ? `${destination.path}${baseName(inputName)}.${ext}` : destination.path;
    const written = await destination.driver.write(path, result.data, { contentType: mime });
    return {
      ...info,
      tmp_url: '',
      object_key: written.key,
      ...(written.bucket !== undefined && { object_bucket: written.bucket }),
      object_uri: written.uri,
      service_storage_uri: `storage://${destination.storage.name}/${written.path}`,
    };
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

/** `red.shoe.png` -> `red.shoe`; `.hidden` stays as it is. */
function baseName(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(0, dot) : name;
}

function extensionOf(path: string): string {
  const name = path.split('/').pop() ?? '';
  return name.includes('.') ? (name.split('.').pop() ?? '') : '';
}

/** The output format a file destination's extension asks for (`.webp` -> webp), when it is an output format. */
function formatOfPath(path: string): OutputMediaType | undefined {
  const type = mediaTypeOfExtension(extensionOf(path))?.type;
  return type && isOutputMediaType(type) ? type : undefined;
}
