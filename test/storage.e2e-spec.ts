import { createServer, type Server } from 'node:http';
import { HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from './helpers/http';
import { startS3Server, type S3TestServer } from './helpers/s3-server';
import { startTestApp, type TestApp } from './helpers/test-app';

/** Storage endpoints through HTTP against a real S3-compatible server (s3rver) on loopback. */
describe('storage connections', () => {
  let s3: S3TestServer;
  let app: TestApp;
  let storageKey: string;
  let acmeKey: string;

  async function createKey(body: object): Promise<string> {
    const res = await client(app.url, app.adminKey).post('/v1/keys', body);
    expect(res.status).toBe(200);
    return res.body.data.key as string;
  }

  function s3Parameters(overrides: Record<string, unknown> = {}) {
    return {
      bucket: 'catalogue',
      path: 'products',
      endpoint: s3.endpoint,
      credentials: { access_key: s3.accessKey, secret_access_key: s3.secretKey },
      ...overrides,
    };
  }

  beforeAll(async () => {
    s3 = await startS3Server(['catalogue']);
    app = await startTestApp({ FETCH_ALLOW_HOSTS: '127.0.0.1' });
    storageKey = await createKey({ name: 'storage', scopes: ['storage'] });
    acmeKey = await createKey({ name: 'acme', scopes: ['storage'], account: 'acme' });
  });

  afterAll(async () => {
    await app?.close();
    await s3?.stop();
  });

  it('lists the storage types', async () => {
    const res = await client(app.url, storageKey).get('/v1/storage/storage-types');
    expect(res.status).toBe(200);
    // the contract's three, then the extensions (libs/storage/src/types/registry.ts)
    expect(res.body).toEqual({ data: ['web_folder', 's3', 'gcs', 'local', 'azure_blob'] });
  });

  it('needs the storage scope', async () => {
    const editor = await createKey({ name: 'editor', scopes: ['image_editing'] });
    const res = await client(app.url, editor).get('/v1/storage/storages');
    expect(res.status).toBe(403);
    expect(res.body.error_code).toBe('113');
    expect((await client(app.url).get('/v1/storage/storages')).status).toBe(401);
  });

  it('runs the whole lifecycle: create, list, get, rename, merge parameters, delete', async () => {
    const api = client(app.url, storageKey);
    const created = await api.post('/v1/storage/storages', {
      name: 'lifecycle',
      type: 's3',
      parameters: s3Parameters(),
    });
    expect(created.status).toBe(200);
    const storage = created.body.data;
    expect(storage).toEqual({
      id: expect.any(Number),
      name: 'lifecycle',
      type: 's3',
      parameters: {
        bucket: 'catalogue',
        path: 'products',
        endpoint: s3.endpoint,
        credentials: { access_key: s3.accessKey },
      },
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });

    const listed = await api.get('/v1/storage/storages');
    expect(listed.body.data.map((s: { id: number }) => s.id)).toContain(storage.id);
    const fetched = await api.get(`/v1/storage/storages/${storage.id}`);
    expect(fetched.body).toEqual({ data: storage });

    const renamed = await api.patch(`/v1/storage/storages/${storage.id}`, { name: 'lifecycle-2' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data).toEqual({ ...storage, name: 'lifecycle-2' });

    // Omitted members stay; `prefix` is the synonym of `path`; null removes an optional member.
    const moved = await api.patch(`/v1/storage/storages/${storage.id}`, { parameters: { prefix: 'archive/2026/' } });
    expect(moved.status).toBe(200);
    expect(moved.body.data.parameters).toEqual({ ...storage.parameters, path: 'archive/2026' });
    const rooted = await api.patch(`/v1/storage/storages/${storage.id}`, { parameters: { path: null } });
    expect(rooted.body.data.parameters).toEqual({
      bucket: 'catalogue',
      endpoint: s3.endpoint,
      credentials: { access_key: s3.accessKey },
    });

    // A new type needs the full parameters of that type.
    const retyped = await api.patch(`/v1/storage/storages/${storage.id}`, { type: 'web_folder' });
    expect(retyped.status).toBe(422);
    expect(retyped.body.error_details).toHaveProperty(['parameters.base_url']);

    await s3.client.send(new PutObjectCommand({ Bucket: 'catalogue', Key: 'kept.txt', Body: 'still here' }));
    const deleted = await api.delete(`/v1/storage/storages/${storage.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ data: null });
    const gone = await api.get(`/v1/storage/storages/${storage.id}`);
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({
      error_code: '1301',
      error_type: 'storage',
      error_message: 'Storage not found.',
      error_details: {},
    });
    expect((await api.patch(`/v1/storage/storages/${storage.id}`, { name: 'x' })).status).toBe(404);
    expect((await api.delete(`/v1/storage/storages/${storage.id}`)).status).toBe(404);
    // Disconnecting does not delete the bucket's files.
    const kept = await s3.client.send(new HeadObjectCommand({ Bucket: 'catalogue', Key: 'kept.txt' }));
    expect(kept.ContentLength).toBe(10);
  });

  it('merges credentials on PATCH: a new secret alone rotates it, a new access key needs its secret', async () => {
    const api = client(app.url, storageKey);
    const created = await api.post('/v1/storage/storages', { name: 'creds', type: 's3', parameters: s3Parameters() });
    const url = `/v1/storage/storages/${created.body.data.id}`;
    const rotated = await api.patch(url, { parameters: { credentials: { secret_access_key: s3.secretKey } } });
    expect(rotated.status).toBe(200);
    expect(rotated.body.data.parameters.credentials).toEqual({ access_key: s3.accessKey });
    const halfPair = await api.patch(url, { parameters: { credentials: { access_key: 'AKIANEW' } } });
    expect(halfPair.status).toBe(422);
    expect(halfPair.body.error_details).toEqual({
      'parameters.credentials.secret_access_key': ['secret_access_key is required when access_key changes'],
    });
  });

  it('refuses a duplicate name with 409, per account', async () => {
    const api = client(app.url, storageKey);
    const body = { name: 'shared-name', type: 's3', parameters: s3Parameters() };
    expect((await api.post('/v1/storage/storages', body)).status).toBe(200);
    const duplicate = await api.post('/v1/storage/storages', body);
    expect(duplicate.status).toBe(409);
    expect(duplicate.body).toEqual({
      error_code: '1302',
      error_type: 'storage',
      error_message: 'A storage named "shared-name" already exists.',
      error_details: {},
    });
    // Another account may use the name, and does not see the first account's storage.
    const acme = client(app.url, acmeKey);
    const theirs = await acme.post('/v1/storage/storages', body);
    expect(theirs.status).toBe(200);
    const ours = (await api.get('/v1/storage/storages')).body.data.find(
      (s: { name: string }) => s.name === 'shared-name',
    );
    expect((await acme.get(`/v1/storage/storages/${ours.id}`)).status).toBe(404);
    expect((await acme.delete(`/v1/storage/storages/${ours.id}`)).status).toBe(404);
    expect((await acme.get('/v1/storage/storages')).body.data.map((s: { id: number }) => s.id)).toEqual([
      theirs.body.data.id,
    ]);
    // Renaming onto a taken name is a conflict too.
    const other = await api.post('/v1/storage/storages', { ...body, name: 'other-name' });
    const clash = await api.patch(`/v1/storage/storages/${other.body.data.id}`, { name: 'shared-name' });
    expect(clash.status).toBe(409);
  });

  it.each([
    [
      'missing secret',
      { type: 's3', parameters: { bucket: 'catalogue', credentials: { access_key: 'AK' } } },
      'parameters.credentials.secret_access_key',
    ],
    [
      'empty access key',
      { type: 's3', parameters: { bucket: 'catalogue', credentials: { access_key: '', secret_access_key: 's' } } },
      'parameters.credentials.access_key',
    ],
    ['no credentials', { type: 'gcs', parameters: { bucket: 'catalogue' } }, 'parameters.credentials'],
    ['unknown member', { type: 's3', parameters: { ...{ bucket: 'b1b' }, colour: 'red' } }, 'parameters.colour'],
    [
      'unknown credential member',
      {
        type: 's3',
        parameters: { bucket: 'bkt', credentials: { access_key: 'a', secret_access_key: 's', token: 't' } },
      },
      'parameters.credentials.token',
    ],
    ['bad bucket', { type: 's3', parameters: { bucket: 'a', credentials: {} } }, 'parameters.bucket'],
    ['bad type', { type: 'ftp', parameters: {} }, 'type'],
    ['web folder without URL', { type: 'web_folder', parameters: { base_url: 'ftp://x/' } }, 'parameters.base_url'],
    ['parameters not an object', { type: 's3', parameters: 'bucket' }, 'parameters'],
    [
      'bad service account',
      { type: 'gcs', parameters: { bucket: 'bkt', credentials: { service_account: { a: 1 } } } },
      'parameters.credentials.service_account',
    ],
    [
      'service_account null (no fallback to the service credentials)',
      { type: 'gcs', parameters: { bucket: 'bkt', credentials: { service_account: null } } },
      'parameters.credentials.access_key',
    ],
    [
      'HMAC keys and a service account at once',
      {
        type: 'gcs',
        parameters: {
          bucket: 'bkt',
          credentials: {
            access_key: 'a',
            secret_access_key: 's',
            service_account: { client_email: 'x', private_key: 'y' },
          },
        },
      },
      'parameters.credentials',
    ],
    ['a root path climbing up', { type: 's3', parameters: { bucket: 'bkt', path: '../other' } }, 'parameters.path'],
    ['a prefix climbing up', { type: 's3', parameters: { bucket: 'bkt', prefix: 'a/../../b' } }, 'parameters.prefix'],
    [
      'a web folder URL with a query',
      { type: 'web_folder', parameters: { base_url: 'https://cdn.example.com/x?token=a' } },
      'parameters.base_url',
    ],
  ])('answers 422 with the field path: %s', async (_name, body, path) => {
    const res = await client(app.url, storageKey).post('/v1/storage/storages', { name: 'invalid', ...body });
    expect(res.status).toBe(422);
    expect(res.body.error_code).toBe('9000');
    expect(res.body.error_type).toBe('validation');
    expect(res.body.error_details).toHaveProperty([path]);
  });

  it('answers 422 for a name that cannot be referenced and an id that is not an integer', async () => {
    const api = client(app.url, storageKey);
    const badName = await api.post('/v1/storage/storages', { name: 'a/b', type: 's3', parameters: s3Parameters() });
    expect(badName.status).toBe(422);
    expect(badName.body.error_details).toHaveProperty(['name']);
    const badId = await api.get('/v1/storage/storages/abc');
    expect(badId.status).toBe(422);
    expect(badId.body.error_details).toEqual({ storage_id: ['storage_id must be an integer from 1 to 2147483647'] });
  });

  describe('refuses a storage the service cannot reach, with the reason', () => {
    it.each([
      ['a missing bucket', () => s3Parameters({ bucket: 'no-such-bucket' }), /Bucket "no-such-bucket" does not exist/],
      [
        // s3rver checks the key id (not SigV4 signatures): an unknown key is its refusal.
        'refused credentials',
        () => s3Parameters({ credentials: { access_key: 'AKIAUNKNOWN', secret_access_key: s3.secretKey } }),
        /refused the credentials/,
      ],
      [
        'a closed port',
        () => s3Parameters({ endpoint: 'http://127.0.0.1:9' }),
        /^Could not reach http:\/\/127\.0\.0\.1:9\/, or it did not answer\.$/,
      ],
      [
        'a forbidden address',
        () => s3Parameters({ endpoint: 'http://127.0.0.2:9000' }),
        /^The URL's host is not allowed: it is not a public address\. An operator can allow it with FETCH_ALLOW_HOSTS\.$/,
      ],
    ])('%s', async (_name, parameters, reason) => {
      const api = client(app.url, storageKey);
      const res = await api.post('/v1/storage/storages', { name: 'unreachable', type: 's3', parameters: parameters() });
      expect(res.status).toBe(422);
      expect(res.body.error_code).toBe('1303');
      expect(res.body.error_type).toBe('storage');
      expect(res.body.error_message).toMatch(reason);
      expect(res.text).not.toContain(s3.secretKey);
      const names = (await api.get('/v1/storage/storages')).body.data.map((s: { name: string }) => s.name);
      expect(names).not.toContain('unreachable');
    });

    it('on PATCH too, and then nothing changes', async () => {
      const api = client(app.url, storageKey);
      const created = await api.post('/v1/storage/storages', {
        name: 'patched',
        type: 's3',
        parameters: s3Parameters(),
      });
      const res = await api.patch(`/v1/storage/storages/${created.body.data.id}`, {
        parameters: { bucket: 'missing-bucket' },
      });
      expect(res.status).toBe(422);
      expect(res.body.error_message).toMatch(/Bucket "missing-bucket" does not exist/);
      expect((await api.get(`/v1/storage/storages/${created.body.data.id}`)).body.data).toEqual(created.body.data);
    });
  });

  describe('web folders', () => {
    let server: Server;
    let base: string;

    beforeAll(async () => {
      server = createServer((req, res) => {
        if (req.url === '/images/red%20shoe.png') {
          res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.from('\x89PNG\r\n\x1a\nfake', 'latin1'));
        } else res.writeHead(404).end();
      });
      await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
      base = `http://127.0.0.1:${(server.address() as { port: number }).port}/images/`;
    });
    afterAll(() => new Promise<void>((done) => server.close(() => done())));

    it('connects one whose server answers, and shows only base_url', async () => {
      const res = await client(app.url, storageKey).post('/v1/storage/storages', {
        name: 'cdn',
        type: 'web_folder',
        parameters: { base_url: base },
      });
      expect(res.status).toBe(200);
      expect(res.body.data.parameters).toEqual({ base_url: base });
    });

    it('refuses one on a forbidden address', async () => {
      const res = await client(app.url, storageKey).post('/v1/storage/storages', {
        name: 'cdn-private',
        type: 'web_folder',
        parameters: { base_url: 'http://10.0.0.1/images/' },
      });
      expect(res.status).toBe(422);
      expect(res.body.error_code).toBe('1303');
      expect(res.body.error_message).toMatch(
        /is not a public address\. An operator can allow it with FETCH_ALLOW_HOSTS/,
      );
    });
  });
});
