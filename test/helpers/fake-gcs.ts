/**
 * A loopback fake of the Cloud Storage JSON API, for the service-account `gcs` driver (its spec, and the shared
 * driver contract suite). Why not a real server: the Firebase Storage emulator (firebase-tools 15) adds ~490
 * packages, ~226 MB and 20+ s to every CI install, and it creates any bucket it is asked about and accepts any
 * credentials, so the missing-bucket and refused-key paths could not run against it; fake-gcs-server is a Go
 * program, not on npm. It implements exactly the subset the driver uses (object metadata, media download, listing
 * with prefix/delimiter/maxResults/pageToken, delete, multipart upload, resumable session start/PUT/cancel),
 * finalises a resumable upload only when the PUT body ends cleanly (as Cloud Storage does), and answers 401 to any
 * request whose bearer JWT is not signed by the test key for Cloud Storage's audience.
 */
import { createHash, generateKeyPairSync, randomUUID, verify } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Readable } from 'node:stream';
import { CRC32C } from '@google-cloud/storage';
import type { GcsServiceAccountKey } from '../../libs/storage/src/connections/storage-parameters';

export function serviceAccount(): GcsServiceAccountKey {
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

/** The test key: the fake accepts tokens it signed, and no other. */
export const KEY = serviceAccount();

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

export const bytesOf = async (stream: Readable) => Buffer.concat((await stream.toArray()) as Buffer[]);

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

export class FakeGcs {
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
