import { pipeline, Readable, Transform } from 'node:stream';
import {
  AnonymousCredential,
  ContainerClient,
  newPipeline,
  RestError,
  StorageSharedKeyCredential,
  type RequestPolicyFactory,
} from '@azure/storage-blob';
import { ServiceException } from '@app/common';
import { DEFAULT_LISTING_LIMITS, ListingBudget, type ListingLimits } from '../../drivers/listing-limits';
import { folderKey, joinKey, relativePath } from '../../drivers/object-paths';
import { judgedOnce, pinnedAgents, type EndpointGuard } from '../../drivers/endpoint-guard';
import type {
  StorageDriver,
  StorageListOptions,
  StorageObjectInfo,
  StorageReadResult,
  StorageWriteOptions,
  StorageWriteResult,
} from '../../drivers/storage-driver';
import { describeUrl } from '../../fetch/describe-url';
import { answerFailure, noAnswer } from '../../drivers/store-failures';

export interface AzureBlobDriverOptions {
  account: string;
  container: string;
  /** Root prefix inside the container, without leading or trailing `/` ('' for the container's root). */
  prefix: string;
  /** The account's blob service URL: `https://<account>.blob.core.windows.net`, a sovereign cloud's, Azurite's. */
  endpoint: string;
  /** One of the two: the account's shared key, or a SAS token (its query string, `sv=...`). */
  accountKey?: string;
  sasToken?: string;
  /** Set for endpoints a user gave: connections then go only to addresses the policy allows (pinned lookups). */
  guard?: EndpointGuard;
  listing?: ListingLimits;
  /** Objects per listing page (the service's maximum and default is 5,000). */
  pageSize?: number;
  /** Longest time one request may take, in milliseconds. */
  requestTimeoutMs?: number;
  /** Further attempts of a request that failed for a passing reason (default 2; 0 turns them off). */
  maxRetries?: number;
}

/** Block size of streamed uploads, and how many are sent at once: at most 8 MiB in memory per write. */
const BLOCK_BYTES = 4 * 1024 * 1024;
const BLOCKS_AT_ONCE = 2;

/**
 * The `azure_blob` driver: a container of an Azure Storage account (or Azurite, or a sovereign cloud's), with the
 * account key or a SAS token. A write stages blocks and commits them at the end, so a body cut short leaves the
 * earlier blob as it was and no new one. Every connection goes through an agent whose lookup is the address
 * policy's (the endpoint is the user's).
 */
export class AzureBlobDriver implements StorageDriver {
  private readonly container: ContainerClient;
  private readonly endpointChecked: Promise<unknown>;
  private readonly agents: ReturnType<typeof pinnedAgents>;

  constructor(private readonly options: AzureBlobDriverOptions) {
    const { endpoint, guard, accountKey, sasToken } = options;
    this.agents = pinnedAgents(guard);
    const credential = accountKey
      ? new StorageSharedKeyCredential(options.account, accountKey)
      : new AnonymousCredential();
    const pipeline = newPipeline(credential, {
      retryOptions: { maxTries: (options.maxRetries ?? 2) + 1, tryTimeoutInMs: options.requestTimeoutMs ?? 30_000 },
      // no telemetry beyond the SDK's User-Agent; nothing else leaves with the requests
      userAgentOptions: { userAgentPrefix: 'atelier' },
    });
    // every request on the pinned agents (the SDK takes a per-request agent, not a per-client one)
    const pinned: RequestPolicyFactory = {
      create: (next) => ({
        sendRequest: (request) => {
          request.agent = request.url.startsWith('https:') ? this.agents.https : this.agents.http;
          return next.sendRequest(request);
        },
      }),
    };
    pipeline.factories.unshift(pinned);
    const base = endpoint.replace(/\/+$/, '');
    const sas = sasToken ? `?${sasToken.replace(/^\?/, '')}` : '';
    this.container = new ContainerClient(`${base}/${encodeURIComponent(options.container)}${sas}`, pipeline);
    this.endpointChecked = judgedOnce(guard, endpoint);
  }

  private key(path: string): string {
    return joinKey(this.options.prefix, path);
  }

  private async send<T>(run: () => Promise<T>, path?: string): Promise<T> {
    try {
      await this.endpointChecked;
      return await run();
    } catch (error) {
      throw this.translate(error, path);
    }
  }

  async read(path: string): Promise<StorageReadResult> {
    const answer = await this.send(() => this.container.getBlobClient(this.key(path)).download(), path);
    const body = answer.readableStreamBody;
    if (!body) throw new ServiceException('STORAGE_BACKEND_FAILED', 'The storage answered without a body.');
    return { stream: Readable.from(body), size: answer.contentLength, contentType: answer.contentType };
  }

  async write(path: string, body: Readable | Buffer, options?: StorageWriteOptions): Promise<StorageWriteResult> {
    const blob = this.container.getBlockBlobClient(this.key(path));
    const headers = { blobHTTPHeaders: { blobContentType: options?.contentType } };
    let size = 0;
    await this.send(async () => {
      if (Buffer.isBuffer(body)) {
        size = body.length;
        await blob.uploadData(body, headers);
        return;
      }
      // counted on its way through; a body that fails fails the upload before its blocks are committed
      const counted = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          size += chunk.length;
          done(null, chunk);
        },
      });
      pipeline(body, counted, () => undefined);
      await blob.uploadStream(counted, BLOCK_BYTES, BLOCKS_AT_ONCE, headers);
    }, path);
    // the blob's URL without the SAS token
    const uri = `${this.container.url.split('?')[0]}/${this.key(path)}`;
    return { path, key: this.key(path), bucket: this.options.container, uri, size };
  }

  /** Page by page within the listing's limits (listing-limits.ts); not recursive: the folder's own blobs. */
  async *list(folder: string, options: StorageListOptions = {}): AsyncIterable<StorageObjectInfo> {
    const prefix = folderKey(this.options.prefix, folder);
    const limits = this.options.listing ?? DEFAULT_LISTING_LIMITS;
    const budget = new ListingBudget(limits);
    const pageSize = { maxPageSize: this.options.pageSize ?? 5000 };
    const pages = options.recursive
      ? this.container.listBlobsFlat({ prefix: prefix || undefined }).byPage(pageSize)
      : this.container.listBlobsByHierarchy('/', { prefix: prefix || undefined }).byPage(pageSize);
    let token: string | undefined;
    for (;;) {
      budget.next(token);
      const page = await this.send(() => pages.next());
      if (page.done) return;
      for (const blob of page.value.segment.blobItems) {
        if (blob.name.endsWith('/')) continue;
        yield {
          path: relativePath(this.options.prefix, blob.name),
          size: Number(blob.properties.contentLength ?? 0),
          lastModified: blob.properties.lastModified,
          contentType: blob.properties.contentType,
        };
      }
      token = page.value.continuationToken || undefined;
      if (!token) return;
    }
  }

  async head(path: string): Promise<StorageObjectInfo | null> {
    try {
      const properties = await this.send(() => this.container.getBlobClient(this.key(path)).getProperties(), path);
      return {
        path,
        size: Number(properties.contentLength ?? 0),
        lastModified: properties.lastModified,
        contentType: properties.contentType,
      };
    } catch (error) {
      if (error instanceof ServiceException && error.codeName === 'STORAGE_OBJECT_NOT_FOUND') return null;
      throw error;
    }
  }

  async delete(path: string): Promise<void> {
    await this.send(() => this.container.getBlobClient(this.key(path)).deleteIfExists(), path);
  }

  async check(timeoutMs = 10_000): Promise<void> {
    const prefix = folderKey(this.options.prefix, '') || undefined;
    const pages = this.container
      .listBlobsFlat({ prefix, abortSignal: AbortSignal.timeout(timeoutMs) })
      .byPage({ maxPageSize: 1 });
    await this.send(() => pages.next());
  }

  close(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  /** What the caller may be told: never a key or a token (the SDK's messages may quote the SAS URL), no stack. */
  private translate(error: unknown, path?: string): ServiceException {
    if (error instanceof ServiceException) {
      return error.codeName === 'FETCH_REFUSED' ? new ServiceException('STORAGE_UNREACHABLE', error.message) : error;
    }
    const { container } = this.options;
    const where = describeUrl(this.options.endpoint);
    if (error instanceof RestError && error.statusCode !== undefined) {
      const status = error.statusCode;
      const code = typeof error.code === 'string' ? error.code : `HTTP ${status}`;
      if (code === 'ContainerNotFound') {
        return new ServiceException('STORAGE_UNREACHABLE', `Container "${container}" does not exist.`);
      }
      if (status === 404 && path !== undefined) {
        return new ServiceException('STORAGE_OBJECT_NOT_FOUND', `Object "${path}" does not exist in the storage.`);
      }
      // Throttling (429, ServerBusy's 503) and 408 are STORAGE_BACKEND_FAILED: they may pass later.
      return answerFailure(status, code, `container "${container}"`);
    }
    // refused, reset, silent or unknown: one message, the cause in the log (noAnswer)
    const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
    // a URL in the SDK's message may carry the SAS token: its query is cut before the log sees it
    return noAnswer(where, { code, message: String(message ?? error).replace(/\?[^\s'"]*/g, '?…') });
  }
}
