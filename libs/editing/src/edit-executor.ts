import { Inject, Injectable } from '@nestjs/common';
import { AppConfig, mediaTypeOfExtension, MEDIA_TYPES, ServiceException } from '@app/common';
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

  async execute(accountId: number, request: EditRequest, upload?: EditSource): Promise<EditResult> {
    const destination = await this.destination(accountId, request.output.destination, request.output.format?.type);
    const source = upload ?? (await this.load(accountId, request.input ?? ''));
    return this.gate.run(async () => {
      const probe = await this.probe(source.bytes);
      const plan = planEdit(request, probe, {
        maxPixels: this.config.maxInputPixels,
        destinationFormat: destination && !destination.isFolder ? formatOfPath(destination.path) : undefined,
      });
      assertImplemented(request);
      let result: PipelineResult;
      try {
        result = await this.pipeline.run(source.bytes, probe, plan);
      } catch (error) {
        throw toImageError(error);
      }
      return {
        input: imageInfo(probe.format, probe.displayWidth, probe.displayHeight),
        output: await this.write(result, destination, source.name),
      };
    });
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
      const download = await this.fetcher.download(input);
      return { bytes: download.buffer, name: lastSegment(new URL(download.url).pathname) };
    }
    const resolved = await this.resolver.resolve(accountId, input, 'input');
    if (resolved.isFolder) {
      throw ServiceException.validation({ input: ['input must name a file, not a folder (ending in "/")'] });
    }
    const object = await resolved.driver.read(resolved.path);
    const bytes = await readWhole(object.stream, this.config.fetchMaxBytes, input, object.size);
    return { bytes, name: lastSegment(resolved.path) };
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
    const named = resolved.isFolder ? undefined : formatOfPath(resolved.path);
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

/** `a/b/red%20shoe.png` -> `red shoe.png`; `image` when there is no usable name. */
function lastSegment(path: string): string {
  const segment = path.split('/').filter(Boolean).pop() ?? '';
  let name = segment;
  try {
    name = decodeURIComponent(segment);
  } catch {
    // keep the raw segment
  }
  name = name.replace(/[\\/\u0000-\u001f]/g, '_');
  return name === '' || name === '.' || name === '..' ? 'image' : name;
}

/** `red.shoe.png` -> `red.shoe`; `.hidden` stays as it is. */
function baseName(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(0, dot) : name;
}

/** The output format a file destination's extension asks for (`.webp` -> webp), when it is an output format. */
function formatOfPath(path: string): 'jpeg' | 'png' | 'webp' | 'avif' | 'tiff' | undefined {
  const name = path.split('/').pop() ?? '';
  if (!name.includes('.')) return undefined;
  const type = mediaTypeOfExtension(name.split('.').pop() ?? '')?.type;
  return type === 'jpeg' || type === 'png' || type === 'webp' || type === 'avif' || type === 'tiff' ? type : undefined;
}
