import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { expect } from 'vitest';
import { client } from './http';

export interface S3TestServer {
  /** e.g. http://127.0.0.1:41234 */
  endpoint: string;
  accessKey: string;
  secretKey: string;
  /** An SDK client of the test itself, to seed and inspect buckets independently of the service. */
  client: S3Client;
  /** Stops the server, keeping its objects: a store that is down (connections refused) until `restart()`. */
  halt(): Promise<void>;
  /** Starts the halted server again on the same port, with its objects and keys. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

interface S3rverProcess {
  port: number;
  /** Ends the process (SIGTERM, then SIGKILL after 5 s) and resolves when it has exited. */
  end(): Promise<void>;
}

/** Runs s3rver-main.mjs on `port` (0: any) and resolves once it listens. */
async function spawnS3rver(
  directory: string,
  buckets: string[],
  keys: { accessKey: string; secretKey: string },
  port = 0,
): Promise<S3rverProcess> {
  const child = spawn(
    process.execPath,
    ['--openssl-legacy-provider', resolve(__dirname, 's3rver-main.mjs'), directory, buckets.join(','), String(port)],
    {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH, S3RVER_ACCESS_KEY: keys.accessKey, S3RVER_SECRET_KEY: keys.secretKey },
    },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const listening = await new Promise<number>((done, fail) => {
    const lines = createInterface({ input: child.stdout });
    lines.once('line', (line) => done((JSON.parse(line) as { port: number }).port));
    void exited.then(() => fail(new Error(`s3rver exited before listening: ${stderr}`)));
  });
  return {
    port: listening,
    end: async () => {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * Starts a real S3-compatible server (s3rver) in a child process on 127.0.0.1 with the given buckets.
 * Its own process because its paging needs --openssl-legacy-provider, which the test process must not carry.
 */
export async function startS3Server(buckets: string[]): Promise<S3TestServer> {
  const directory = mkdtempSync(join(tmpdir(), 'atelier-s3-'));
  // A key pair of this run only: s3rver checks signatures against it and refuses any other key.
  const accessKey = `AKIATEST${randomBytes(6).toString('hex').toUpperCase()}`;
  const secretKey = `test-secret-${randomBytes(18).toString('base64url')}`;
  const keys = { accessKey, secretKey };
  let server: S3rverProcess | undefined = await spawnS3rver(directory, buckets, keys);
  const { port } = server;
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: accessKey, secretAccessKey: secretKey },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  return {
    endpoint,
    accessKey,
    secretKey,
    client,
    halt: async () => {
      await server?.end();
      server = undefined;
    },
    restart: async () => {
      server ??= await spawnS3rver(directory, buckets, keys, port);
    },
    stop: async () => {
      client.destroy();
      await server?.end();
      server = undefined;
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** The body of POST /v1/storage/storages for an `s3` storage on this server (bucket root, the run's keys). */
export function s3StorageBody(s3: S3TestServer, name: string, bucket: string) {
  return {
    name,
    type: 's3',
    parameters: {
      bucket,
      endpoint: s3.endpoint,
      credentials: { access_key: s3.accessKey, secret_access_key: s3.secretKey },
    },
  };
}

/** Creates an `s3` storage on this server for each `name: bucket` through the API at `url` (each must answer 200). */
export async function createS3Storages(
  s3: S3TestServer,
  url: string,
  key: string,
  buckets: Record<string, string>,
): Promise<void> {
  for (const [name, bucket] of Object.entries(buckets)) {
    const res = await client(url, key).post('/v1/storage/storages', s3StorageBody(s3, name, bucket));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
}

/** Every key of `bucket` under `prefix`, all pages, sorted. */
export async function listKeys(s3: S3TestServer, bucket: string, prefix: string): Promise<string[]> {
  const found: string[] = [];
  let token: string | undefined;
  do {
    const page = await s3.client.send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }),
    );
    found.push(...(page.Contents ?? []).map((object) => object.Key!));
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return found.sort();
}

/** The bytes of one object. */
export async function readObject(s3: S3TestServer, bucket: string, key: string): Promise<Buffer> {
  const object = await s3.client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return Buffer.from(await object.Body!.transformToByteArray());
}
