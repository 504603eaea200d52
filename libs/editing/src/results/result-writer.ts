import { Injectable } from '@nestjs/common';
import {
  isOutputMediaType,
  mediaTypeOfExtension,
  MEDIA_TYPES,
  ServiceException,
  type OutputMediaType,
} from '@app/common';
import type { PipelineResult } from '@app/image-pipeline';
import {
  isStorageReference,
  requireCapability,
  STORAGE_SCHEME,
  StorageResolver,
  TemporaryBucket,
  type ResolvedReference,
} from '@app/storage';
import { imageInfo, storageUriFields, type OutputImageInfo } from '../image-info';

/** The key of the temporary bucket among output stores ({@link outputStoreOf}). */
export const TEMPORARY_OUTPUT_STORE = 'temporary';

/** Write failures, by the output store they failed on: `storage:<id>`, or {@link TEMPORARY_OUTPUT_STORE}. */
const writeFailures = new WeakMap<object, string>();

/**
 * The output store a failure of {@link ResultWriter.write} happened on (`storage:<id>` or `temporary`); undefined
 * for any other failure (reading the input, editing it). What a task's store breaker counts (OutputStoreBreaker).
 */
export function outputStoreOf(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null ? writeFailures.get(error) : undefined;
}

/**
 * The one place where results go: the rules of an output destination (a writable storage of the caller's
 * account; a file's extension agreeing with the format; a folder's results named after their inputs) and the
 * writing itself, to that storage or to the temporary bucket, answered as OutputImageInfo. Edits and tasks write
 * through it (EditExecutor); so will every other producer of images.
 */
@Injectable()
export class ResultWriter {
  constructor(
    private readonly resolver: StorageResolver,
    private readonly temporary: TemporaryBucket,
  ) {}

  /** The output destination, checked before any work: a writable storage of the caller's account. */
  async destination(
    accountId: number,
    destination: string | undefined,
    format: string | undefined,
  ): Promise<ResolvedReference | undefined> {
    if (destination === undefined) return undefined;
    const field = 'output.destination';
    if (!isStorageReference(destination)) {
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
    requireCapability(resolved.storage.type, 'write', field);
    return resolved;
  }

  async write(
    result: PipelineResult,
    destination: ResolvedReference | undefined,
    inputName: string,
  ): Promise<OutputImageInfo> {
    const { ext, mime } = MEDIA_TYPES[result.format];
    const info = imageInfo(result.format, result.width, result.height);
    const store = destination ? `storage:${destination.storage.id}` : TEMPORARY_OUTPUT_STORE;
    const marked = <T>(write: Promise<T>): Promise<T> =>
      write.catch((error: unknown) => {
        if (typeof error === 'object' && error !== null) writeFailures.set(error, store);
        throw error;
      });
    if (!destination) {
      const stored = await marked(this.temporary.put(result.data, ext, mime));
      return { ...info, tmp_url: stored.url };
    }
    const path = destination.isFolder ? `${destination.path}${baseName(inputName)}.${ext}` : destination.path;
    const written = await marked(destination.driver.write(path, result.data, { contentType: mime }));
    return {
      ...info,
      tmp_url: '',
      object_key: written.key,
      ...(written.bucket !== undefined && { object_bucket: written.bucket }),
      object_uri: written.uri,
      ...storageUriFields(`${STORAGE_SCHEME}${destination.storage.name}/${written.path}`),
    };
  }
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
export function formatOfPath(path: string): OutputMediaType | undefined {
  const type = mediaTypeOfExtension(extensionOf(path))?.type;
  return type && isOutputMediaType(type) ? type : undefined;
}
