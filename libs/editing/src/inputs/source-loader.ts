import { Inject, Injectable } from '@nestjs/common';
import { AppConfig, ServiceException } from '@app/common';
import { isStorageReference, readWhole, SafeFetcher, StorageResolver, type ReserveBytes } from '@app/storage';

/** An input image in memory with the name its results take in folders. */
export interface EditSource {
  bytes: Buffer;
  /** File name (last path segment of the URL or reference, or the uploaded file's name). */
  name: string;
}

/**
 * The one reader of input images by location, for edits, tasks and scenes: a URL through SafeFetcher (address
 * policy, timeouts, size cap) or a storage object of the caller's account (size cap), holding its bytes in the
 * input budget through `reserve` as they arrive. `field` names the member in errors (`input`, `object.image_url`).
 */
@Injectable()
export class SourceLoader {
  constructor(
    @Inject(AppConfig) private readonly config: AppConfig,
    private readonly resolver: StorageResolver,
    private readonly fetcher: SafeFetcher,
  ) {}

  async load(accountId: number, location: string, reserve: ReserveBytes, field = 'input'): Promise<EditSource> {
    if (!isStorageReference(location)) {
      // named after the URL the client gave, not where redirects led
      const download = await this.fetcher.download(location, { reserve });
      return { bytes: download.buffer, name: fileName(urlPathName(location)) };
    }
    const resolved = await this.resolver.resolve(accountId, location, field);
    if (resolved.isFolder) {
      throw ServiceException.validation({ [field]: [`${field} must name a file, not a folder (ending in "/")`] });
    }
    const object = await resolved.driver.read(resolved.path);
    const bytes = await readWhole(object.stream, this.config.fetchMaxBytes, location, object.size, reserve);
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
export function fileName(raw: string): string {
  const name = (raw.split(/[\\/]/).pop() ?? '').replace(/[\u0000-\u001f\u007f]/g, '_').trim();
  return name === '' || name === '.' || name === '..' ? 'image' : name;
}
