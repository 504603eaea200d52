/**
 * Contract test of the service-account `gcs` driver against a loopback fake of the Cloud Storage JSON API.
 *
 * Why not a real server: the Firebase Storage emulator (firebase-tools 15) adds ~490 packages, ~226 MB and 20+ s
 * to every CI install (over this project's 150 MB budget), and it creates any bucket it is asked about and accepts
 * any credentials, so the missing-bucket and refused-key paths could not run against it anyway; fake-gcs-server
 * is a Go program, not on npm. The fake below implements exactly the subset the driver uses (object metadata,
 * media download, listing with prefix/delimiter/maxResults/pageToken, delete, multipart upload, resumable session
 * start/PUT/cancel), finalises a resumable upload only when the PUT body ends cleanly (as Cloud Storage does), and
 * answers 401 to any request whose bearer JWT is not signed by the test key for Cloud Storage's audience. Tests
 * assert on the bytes the fake holds and the requests it saw. The connect guard refuses (and records) any connection
 * beyond 127.0.0.1: the last test proves nothing tried to leave loopback (no token endpoint, no metadata server).
 */
import { createHash, generateKeyPairSync, randomUUID, verify } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { CRC32C } from '@google-cloud/storage';
import { Logger } from '@nestjs/common';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ServiceException } from '@app/common';
import { installConnectGuard, type ConnectGuard } from '../../../../../test/helpers/connect-guard';
import {
  GcsServiceAccountDriver,
  type GcsServiceAccountDriverOptions,
  type GcsServiceAccountKey,
} from './gcs-service-account.driver';

function serviceAccount(): GcsServiceAccountKey {
  const { privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  return {
    type: 'service_account',
    project_id: 'atelier-test',
    private_key_id: 'key-1',
    private_key: privateKey,
    client_email: 'atelier@atelier-test.iam.gserviceaccount.com',
  };
}

const KEY = serviceAccount();

interface StoredObject {
  data: Buffer;
  contentType: string;
  generation: string;
  updated: string;
}
type Objects = Map<string, StoredObject>;

/** The base64 MD5 and CRC32C that Cloud Storage reports for an object. */
function hashes(data: Buffer): { md5Hash: string; crc32c: string } {
  const crc = new CRC32C();
  crc.update(data);
  return { md5Hash: createHash('md5').update(data).digest('base64'), crc32c: crc.toString() };
}

const bytesOf = async (stream: Readable) => Buffer.concat((await stream.toArray()) as Buffer[]);

/** The parts' bodies of a multipart/related request. */
function multipartBodies(contentType: string | undefined, body: Buffer): Buffer[] {
  const delimiter = Buffer.from(`--${/boundary="?([^";]+)/.exec(contentType ?? '')?.[1]}`);
  const parts: Buffer[] = [];
  for (let at = body.indexOf(delimiter), next; at !== -1; at = next) {
    next = body.indexOf(delimiter, at + delimiter.length);
    if (next === -1) break;
    const part = body.subarray(at + delimiter.length, next);
    parts.push(part.subarray(part.indexOf('\r\n\r\n') + 4, part.length - 2));
  }
  return parts;
}

class FakeGcs {
  readonly buckets = new Map<string, Objects>();
  readonly denied = new Set<string>();
  readonly log: string[] = [];
  readonly sessions = new Map<string, { name: string; contentType: string }>();
  abortedUploads = 0;
  cancelledSessions = 0;
  receivedUploadBytes = 0;
  failNext?: number;
  url = '';
  private generation = 1;
  private readonly server = createServer((request, response) => void this.handle(request, response));

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  /** A self-signed JWT of the test key for `https://storage.googleapis.com/`, as the real service demands. */
  private authorised(request: IncomingMessage): boolean {
    const token = /^Bearer ([\w-]+)\.([\w-]+)\.([\w-]+)$/.exec(request.headers.authorization ?? '');
    if (!token) return false;
    const [, header, payload, signature] = token;
    const signed = Buffer.from(`${header}.${payload}`);
    if (!verify('RSA-SHA256', signed, KEY.private_key, Buffer.from(signature, 'base64url'))) return false;
    const head = JSON.parse(Buffer.from(header, 'base64url').toString()) as Record<string, unknown>;
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    return (
      head.alg === 'RS256' &&
      head.kid === KEY.private_key_id &&
      claims.iss === KEY.client_email &&
      claims.aud === 'https://storage.googleapis.com/' &&
      Number(claims.exp) > Date.now() / 1000
    );
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', this.url);
    this.log.push(`${request.method} ${url.pathname}${url.search}`);
    if (!this.authorised(request)) return this.error(response, 401, 'Invalid Credentials');
    const failure = this.failNext;
    this.failNext = undefined;
    if (failure) return this.error(response, failure, 'Backend Error');
    const route = /^\/(upload\/)?storage\/v1\/b\/([^/]+)\/o(?:\/(.+))?$/.exec(url.pathname);
    if (!route) return this.error(response, 501, 'Not in the fake.');
    const [, upload, bucketName, encodedName] = route;
    const bucket = this.buckets.get(bucketName);
    if (!bucket) return this.error(response, 404, 'The specified bucket does not exist.');
    if (this.denied.has(bucketName)) return this.error(response, 403, `${KEY.client_email} has no access.`);
    if (upload) return this.upload(request, response, url, bucket);
    if (encodedName === undefined) return this.list(response, url, bucket);
    const name = decodeURIComponent(encodedName);
    const object = bucket.get(name);
    const generation = url.searchParams.get('generation');
    if (!object || (generation && generation !== object.generation)) {
      return this.error(response, 404, `No such object: ${bucketName}/${name}`);
    }
    if (request.method === 'DELETE') {
      bucket.delete(name);
      response.writeHead(204).end();
    } else if (url.searchParams.get('alt') === 'media') {
      response.writeHead(200, {
        'content-type': object.contentType,
        'content-length': object.data.length,
        'x-goog-hash': `crc32c=${hashes(object.data).crc32c},md5=${hashes(object.data).md5Hash}`,
        'x-goog-stored-content-encoding': 'identity',
      });
      response.end(object.data);
    } else {
      this.json(response, 200, this.resource(name, object));
    }
  }

  private list(response: ServerResponse, url: URL, bucket: Objects): void {
    const prefix = url.searchParams.get('prefix') ?? '';
    const delimiter = url.searchParams.get('delimiter');
    const max = Number(url.searchParams.get('maxResults') ?? 1000);
    const after = Buffer.from(url.searchParams.get('pageToken') ?? '', 'base64url').toString();
    // Entry → whether it is a prefix: with a delimiter, everything below a sub-folder (its marker too) rolls up.
    const entries = new Map<string, boolean>();
    for (const name of bucket.keys()) {
      if (!name.startsWith(prefix)) continue;
      const cut = delimiter ? name.indexOf(delimiter, prefix.length) : -1;
      entries.set(cut === -1 ? name : name.slice(0, cut + 1), cut !== -1);
    }
    const remaining = [...entries.keys()].sort().filter((entry) => entry > after);
    const page = remaining.slice(0, max);
    this.json(response, 200, {
      kind: 'storage#objects',
      items: page.filter((entry) => !entries.get(entry)).map((name) => this.resource(name, bucket.get(name)!)),
      prefixes: page.filter((entry) => entries.get(entry)),
      nextPageToken: remaining.length > max ? Buffer.from(page.at(-1)!).toString('base64url') : undefined,
    });
  }

  private async upload(request: IncomingMessage, response: ServerResponse, url: URL, bucket: Objects) {
    const sessionId = url.searchParams.get('upload_id');
    if (sessionId !== null) return this.resume(request, response, sessionId, bucket);
    const body = await bytesOf(request);
    if (url.searchParams.get('uploadType') === 'multipart') {
      const [metadata, media] = multipartBodies(request.headers['content-type'], body);
      const { name, contentType } = JSON.parse(metadata.toString()) as { name?: string; contentType: string };
      return this.json(response, 200, this.put(bucket, url.searchParams.get('name') ?? name ?? '', media, contentType));
    }
    // Cloud Storage takes a resumable object's type from X-Upload-Content-Type, else from the JSON metadata.
    const metadata = JSON.parse(body.toString() || '{}') as { contentType?: string };
    const header = request.headers['x-upload-content-type'] as string | undefined;
    const id = randomUUID();
    const name = url.searchParams.get('name') ?? '';
    this.sessions.set(id, { name, contentType: header ?? metadata.contentType ?? 'application/octet-stream' });
    const location = `${this.url}${url.pathname}?uploadType=resumable&upload_id=${id}`;
    response.writeHead(200, { location }).end();
  }

  private resume(request: IncomingMessage, response: ServerResponse, id: string, bucket: Objects) {
    const session = this.sessions.get(id);
    if (!session) return this.error(response, 404, 'No such upload.');
    if (request.method === 'DELETE') {
      this.sessions.delete(id);
      this.cancelledSessions += 1;
      return void response.writeHead(499).end();
    }
    if (request.headers['content-range'] !== 'bytes 0-*/*') return this.error(response, 400, 'Unexpected range.');
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      this.receivedUploadBytes += chunk.length;
    });
    // Only a body that ends cleanly finalises the object; a connection cut before its last chunk does not.
    request.on('end', () => {
      if (!this.sessions.delete(id)) return;
      this.json(response, 200, this.put(bucket, session.name, Buffer.concat(chunks), session.contentType));
    });
    request.on('close', () => {
      if (!request.complete) this.abortedUploads += 1;
    });
  }

  /** Stores an object as a completed upload does; returns its resource. */
  put(bucket: Objects, name: string, data: Buffer, contentType = 'image/jpeg') {
    const object = { data, contentType, generation: String(this.generation++), updated: new Date().toISOString() };
    bucket.set(name, object);
    return this.resource(name, object);
  }

  private resource(name: string, object: StoredObject) {
    const { data, contentType, generation, updated } = object;
    return {
      kind: 'storage#object',
      name,
      size: String(data.length),
      contentType,
      generation,
      updated,
      ...hashes(data),
    };
  }

  private json(response: ServerResponse, status: number, body: unknown): void {
    response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  }

  private error(response: ServerResponse, code: number, message: string): void {
    this.json(response, code, { error: { code, message, errors: [{ message, reason: 'fake' }] } });
  }
}

const fake = new FakeGcs();
const photos = () => fake.buckets.get('photos')!;
const seed = (names: string[]) => names.forEach((name) => fake.put(photos(), `shop/${name}`, Buffer.from(name)));

function driver(options: Partial<GcsServiceAccountDriverOptions> = {}): GcsServiceAccountDriver {
  return new GcsServiceAccountDriver({
    bucket: 'photos',
    prefix: 'shop',
    serviceAccount: KEY,
    endpoint: fake.url,
    pageSize: 2,
    maxRetries: 0,
    ...options,
  });
}

async function failure(promise: Promise<unknown>): Promise<ServiceException> {
  const error: unknown = await promise.catch((thrown: unknown) => thrown);
  expect(error).toBeInstanceOf(ServiceException);
  return error as ServiceException;
}

describe('GcsServiceAccountDriver', () => {
  let guard: ConnectGuard;
  beforeAll(async () => {
    guard = installConnectGuard(['127.0.0.1']);
    await fake.start();
  });
  afterAll(async () => {
    await fake.stop();
    guard.restore();
  });
  beforeEach(() => {
    fake.buckets.clear();
    fake.buckets.set('photos', new Map());
    fake.log.length = 0;
  });

  it('writes a buffer and reads the same bytes back, under the root prefix', async () => {
    const gcs = driver();
    const bytes = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 0]);
    const result = await gcs.write('out/a.jpg', bytes, { contentType: 'image/jpeg' });
    expect(result).toEqual({
      path: 'out/a.jpg',
      key: 'shop/out/a.jpg',
      bucket: 'photos',
      uri: 'gs://photos/shop/out/a.jpg',
      size: 8,
    });
    expect(photos().get('shop/out/a.jpg')?.data).toEqual(bytes);
    const read = await gcs.read('out/a.jpg');
    expect(read).toMatchObject({ size: 8, contentType: 'image/jpeg' });
    expect(await bytesOf(read.stream)).toEqual(bytes);
    expect(fake.log[0]).toMatch(/^POST \/upload\/storage\/v1\/b\/photos\/o\?uploadType=multipart&name=shop%2Fout/);
  });

  it('streams a body through a resumable session', async () => {
    const chunks = Array.from({ length: 40 }, (_, index) => Buffer.alloc(16 * 1024, index));
    const result = await driver().write('big.bin', Readable.from(chunks), { contentType: 'image/png' });
    expect(result.size).toBe(40 * 16 * 1024);
    const stored = photos().get('shop/big.bin');
    // Digests, because toEqual walks a 640 KiB buffer byte by byte (seconds).
    const digest = (data?: Buffer) => data && createHash('sha256').update(data).digest('hex');
    expect(digest(stored?.data)).toBe(digest(Buffer.concat(chunks)));
    expect(stored?.contentType).toBe('image/png');
    expect(fake.log.filter((line) => line.includes('uploadType=resumable'))).toHaveLength(2);
  });

  it('leaves no object when the body fails mid-upload, and keeps the earlier one', async () => {
    const gcs = driver({ prefix: '' });
    await gcs.write('a.jpg', Buffer.from('earlier'));
    fake.receivedUploadBytes = 0;
    let pushed = 0;
    const body = new Readable({
      read() {
        if (pushed++ < 4) return void this.push(Buffer.alloc(64 * 1024, 7));
        // Fail only once the fake holds part of the body, so the upload really is under way.
        void vi
          .waitFor(() => expect(fake.receivedUploadBytes).toBeGreaterThan(0))
          .then(() => this.destroy(new Error('encoder crashed')));
      },
    });
    const error = await failure(gcs.write('a.jpg', body));
    expect(error.codeName).toBe('STORAGE_BACKEND_FAILED');
    await vi.waitFor(() => expect(fake.abortedUploads).toBe(1));
    expect(fake.cancelledSessions).toBe(1);
    expect(fake.sessions.size).toBe(0);
    expect(photos().get('a.jpg')?.data.toString()).toBe('earlier');
    expect((await bytesOf((await gcs.read('a.jpg')).stream)).toString()).toBe('earlier');
  });

  it('reports a missing object as STORAGE_OBJECT_NOT_FOUND and head as null', async () => {
    const gcs = driver();
    const error = await failure(gcs.read('nope.jpg'));
    expect(error).toMatchObject({ codeName: 'STORAGE_OBJECT_NOT_FOUND', retryable: false });
    expect(error.message).toBe('Object "nope.jpg" does not exist in storage.');
    expect(await gcs.head('nope.jpg')).toBeNull();
  });

  it('heads and deletes an object; deleting a missing one is fine', async () => {
    const gcs = driver();
    await gcs.write('x/y.png', Buffer.from('png'), { contentType: 'image/png' });
    const info = await gcs.head('x/y.png');
    expect(info).toMatchObject({ path: 'x/y.png', size: 3, contentType: 'image/png' });
    expect(info?.lastModified).toBeInstanceOf(Date);
    await gcs.delete('x/y.png');
    expect(photos().has('shop/x/y.png')).toBe(false);
    await expect(gcs.delete('x/y.png')).resolves.toBeUndefined();
  });

  it('lists a folder page by page, recursively or not, skipping folder markers', async () => {
    const files = ['1', '2', '3', '4', '5'].map((name) => `in/${name}.jpg`);
    seed([...files, 'in/sub/', 'in/sub/6.jpg', 'in/sub/deep/7.jpg', 'other/8.jpg']);
    const gcs = driver();
    const collect = async (recursive: boolean) => {
      const paths: string[] = [];
      for await (const info of gcs.list('in/', { recursive })) paths.push(info.path);
      return paths;
    };
    const listings = () => fake.log.filter((line) => line.startsWith('GET /storage/v1/b/photos/o?'));
    expect(await collect(false)).toEqual(files);
    const flatPages = listings();
    expect(flatPages).toHaveLength(3);
    expect(flatPages.every((line) => line.includes('delimiter=%2F') && line.includes('maxResults=2'))).toBe(true);
    expect(flatPages.slice(1).every((line) => line.includes('pageToken='))).toBe(true);
    fake.log.length = 0;
    expect(await collect(true)).toEqual([...files, 'in/sub/6.jpg', 'in/sub/deep/7.jpg']);
    expect(listings().filter((line) => !line.includes('delimiter'))).toHaveLength(4);
  });

  it('fetches the next page only when the caller gets there', async () => {
    seed(['a', 'b', 'c', 'd', 'e']);
    const iterator = driver().list('', { recursive: true })[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toMatchObject({ path: 'a', size: 1 });
    expect(fake.log).toHaveLength(1);
    await iterator.return?.();
  });

  it('checks a reachable bucket and names a missing one', async () => {
    await expect(driver().check()).resolves.toBeUndefined();
    const error = await failure(driver({ bucket: 'gone' }).check());
    expect(error.codeName).toBe('STORAGE_UNREACHABLE');
    expect(error.message).toBe('Bucket "gone" does not exist.');
    for (const body of [Buffer.from('x'), Readable.from([Buffer.from('x')])]) {
      const written = await failure(driver({ bucket: 'gone' }).write('a.jpg', body));
      expect(written).toMatchObject({ codeName: 'STORAGE_UNREACHABLE', message: error.message });
    }
  });

  it('reports refused credentials and missing permissions as STORAGE_UNREACHABLE, never with the key', async () => {
    const stranger = serviceAccount();
    const refused = await failure(driver({ serviceAccount: stranger }).check());
    expect(refused).toMatchObject({ codeName: 'STORAGE_UNREACHABLE', message: 'The credentials were refused.' });
    fake.denied.add('photos');
    const denied = await failure(driver().read('a.jpg'));
    fake.denied.clear();
    expect(denied).toMatchObject({ codeName: 'STORAGE_UNREACHABLE', retryable: false });
    for (const error of [refused, denied]) {
      expect(JSON.stringify({ ...error, message: error.message })).not.toMatch(/PRIVATE KEY|MII/);
    }
  });

  it('reports 5xx, throttling and network failures as STORAGE_BACKEND_FAILED, which may pass when retried', async () => {
    for (const status of [503, 500, 429, 408]) {
      fake.failNext = status;
      const error = await failure(driver().head('a.jpg'));
      expect(error, `HTTP ${status}`).toMatchObject({ codeName: 'STORAGE_BACKEND_FAILED', retryable: true });
    }
    // Nothing listens on loopback port 1: the connection is refused.
    const logged: string[] = [];
    const log = vi
      .spyOn(Logger.prototype, 'log')
      .mockImplementation((message: unknown) => void logged.push(String(message)));
    const offline = await failure(driver({ endpoint: 'http://127.0.0.1:1' }).head('a.jpg')).finally(() =>
      log.mockRestore(),
    );
    // The caller is told the same whatever the cause (refused, silent, unknown name); the log says which.
    expect(offline).toMatchObject({
      codeName: 'STORAGE_BACKEND_FAILED',
      message: 'Could not reach http://127.0.0.1:1/, or it did not answer.',
      retryable: true,
    });
    expect(logged.join('\n')).toContain('ECONNREFUSED');
  });

  it('refuses an endpoint its guard refuses, before any request', async () => {
    const resolve = () => Promise.reject(new ServiceException('FETCH_REFUSED', 'The address is not allowed.'));
    const error = await failure(driver({ guard: { resolve } }).write('a.jpg', Readable.from([Buffer.from('x')])));
    expect(error).toMatchObject({ codeName: 'STORAGE_UNREACHABLE', message: 'The address is not allowed.' });
    expect(fake.log).toHaveLength(0);
  });

  // Last on purpose: every connection the tests above opened went to loopback (no token or metadata server).
  it('opened connections to loopback only', () => {
    expect(guard.allowed.length).toBeGreaterThan(0);
    expect(guard.refused).toEqual([]);
  });
});
