import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { Injectable } from '@nestjs/common';
import { AppConfig, locateShippedFolder, MEDIA_TYPES, type ImageMediaType } from '@app/common';
import { describeUrl } from '../fetch/describe-url';
import { tooLarge } from '../fetch/fetch-stream';
import type { SafeFetchResponse } from '../fetch/safe-fetcher.types';

/** URL path under which the API serves the samples: `PUBLIC_BASE_URL/samples/<name>`. */
export const SAMPLES_ROUTE = 'samples';

const SAMPLES_FOLDER = join('libs', 'storage', 'samples');

/** The spellings of this machine's loopback that reach the service's own listener at its port. */
const LOOPBACK_SPELLINGS = ['localhost', '127.0.0.1', '[::1]'];

export interface SampleImage {
  /** File name in libs/storage/samples and last segment of its URL. */
  readonly name: string;
  readonly type: ImageMediaType;
  /** Pixels. */
  readonly width: number;
  readonly height: number;
  readonly description: string;
}

/** The only files ever served or read as samples (libs/storage/samples/README.md: origin and licence). */
export const SAMPLE_IMAGES: readonly SampleImage[] = [
  { name: 'mug.jpg', type: 'jpeg', width: 800, height: 600, description: 'a ceramic mug on a wooden table' },
  { name: 'bottle.png', type: 'png', width: 480, height: 720, description: 'a glass bottle, transparent background' },
  { name: 'plant.jpg', type: 'jpeg', width: 600, height: 600, description: 'a potted plant against a pastel wall' },
];

/**
 * The sample images the service ships (so that its documented examples work on a fresh install with no network),
 * and the one rule that reads them without a connection: a URL on one of this service's own origins, with no user
 * name or password, under exactly the samples folder. Its own origins are PUBLIC_BASE_URL's (scheme, host and
 * port; the folder is `<its path>/samples/`), and the service's own listener reached on loopback in any spelling
 * (`localhost`, `127.0.0.1`, `[::1]` at PORT, its scheme; the folder is `/samples/`): a client on the same
 * machine writes either. Such a URL never goes to the network, so the address policy's loopback refusal does not
 * apply to it and no request to the service itself is made. Only the files of {@link SAMPLE_IMAGES} are ever
 * read: the name is looked up in that list, never used as a path, and any other name answers 404 without touching
 * the disk.
 */
@Injectable()
export class SampleImages {
  private readonly base: URL;
  /** Path prefix of the samples on the public base URL, e.g. `/samples/`. */
  private readonly prefix: string;
  /** Each of the service's own origins, with the path prefix of the samples there. */
  private readonly origins = new Map<string, string>();
  private readonly folder: string;
  private readonly bytes = new Map<string, Promise<Buffer>>();

  constructor(config: AppConfig) {
    this.base = new URL(config.publicBaseUrl);
    this.prefix = `${this.base.pathname.replace(/\/+$/, '')}/${SAMPLES_ROUTE}/`;
    const scheme = config.tls ? 'https' : 'http';
    for (const host of LOOPBACK_SPELLINGS) {
      this.origins.set(new URL(`${scheme}://${host}:${config.port}`).origin, `/${SAMPLES_ROUTE}/`);
    }
    this.origins.set(this.base.origin, this.prefix);
    // Located at start: an installation without its samples fails now, not at the first example tried.
    this.folder = locateShippedFolder(SAMPLES_FOLDER, __dirname, 'Sample images');
  }

  /** The sample's public URL, `PUBLIC_BASE_URL/samples/<name>`; the folder's (ending in `/`) without a name. */
  url(name = ''): string {
    return `${this.base.origin}${this.prefix}${name}`;
  }

  /** The listed sample of this name (exact), else undefined. */
  find(name: string): SampleImage | undefined {
    return SAMPLE_IMAGES.find((sample) => sample.name === name);
  }

  /** A listed sample's bytes, read once and kept (they are a few KiB each). */
  read(sample: SampleImage): Promise<Buffer> {
    let bytes = this.bytes.get(sample.name);
    if (!bytes) {
      bytes = readFile(join(this.folder, sample.name));
      this.bytes.set(sample.name, bytes);
      bytes.catch(() => this.bytes.delete(sample.name));
    }
    return bytes;
  }

  /**
   * The answer to a GET or HEAD of `url` when it names this service's samples folder: the listed sample (200), or 404
   * for any other name under it, as `GET /samples/<name>` answers; undefined for every other URL and method, which
   * then go to the network under the address policy. `maxBytes` is the caller's size cap, as for any download.
   */
  async open(url: URL, method: string, maxBytes: number): Promise<SafeFetchResponse | undefined> {
    if (method !== 'GET' && method !== 'HEAD') return undefined;
    const prefix = this.origins.get(url.origin);
    if (prefix === undefined || url.username !== '' || url.password !== '') return undefined;
    if (!url.pathname.startsWith(prefix)) return undefined;
    const sample = this.find(url.pathname.slice(prefix.length));
    if (!sample) return { url: url.href, status: 404, headers: {}, body: Readable.from([]) };
    const bytes = await this.read(sample);
    if (bytes.length > maxBytes) throw tooLarge(describeUrl(url), maxBytes, bytes.length);
    const mime = MEDIA_TYPES[sample.type].mime;
    return {
      url: url.href,
      status: 200,
      headers: { 'content-type': mime, 'content-length': String(bytes.length) },
      contentType: mime,
      size: bytes.length,
      body: Readable.from(method === 'HEAD' ? [] : [bytes]),
    };
  }
}
