import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from './helpers/http';
import { startS3Server, type S3TestServer } from './helpers/s3-server';
import { startTestApp, type TestApp } from './helpers/test-app';

const SECRET = 'wJalrXUtnFEMI-K7MDENG-bPxRfiCYEXAMPLEKEY';

/** Values that are not JSON objects, several of them carrying the secret. */
const NOT_OBJECTS: Array<[string, unknown]> = [
  ['a JSON-encoded object', JSON.stringify({ access_key: 'AKIA1', secret_access_key: SECRET })],
  ['a string', SECRET],
  ['a number', 5],
  ['zero', 0],
  ['true', true],
  ['false', false],
  ['an array', [SECRET]],
  ['an array of objects', [{ access_key: 'AKIA1', secret_access_key: SECRET }]],
];

/** Every object-typed member of the storage parameters, per type: where it is reported, and how. */
const OBJECT_MEMBERS: Array<{
  type: string;
  path: string;
  message: string;
  parameters: (value: unknown) => unknown;
}> = [
  ...['s3', 'gcs', 'web_folder'].map((type) => ({
    type,
    path: 'parameters',
    message: 'parameters must be an object',
    parameters: (value: unknown) => value,
  })),
  ...['s3', 'gcs'].map((type) => ({
    type,
    path: 'parameters.credentials',
    message: 'credentials must be an object',
    parameters: (value: unknown) => ({ bucket: 'vault', credentials: value }),
  })),
  {
    type: 'gcs',
    path: 'parameters.credentials.service_account',
    message: 'service_account must be the JSON key file of a service account',
    parameters: (value) => ({ bucket: 'vault', credentials: { service_account: value } }),
  },
];

/** Parts of the secret long enough to recognise it in a log line, escaped or not. */
function secretParts(): string[] {
  return [SECRET, ...SECRET.split('-'), JSON.stringify(SECRET).slice(1, -1)];
}

describe('storage parameters that are not objects', () => {
  let s3: S3TestServer;
  let t: TestApp;
  let api: ReturnType<typeof client>;
  let id: number;

  beforeAll(async () => {
    s3 = await startS3Server(['vault']);
    // The most verbose level: whatever the service logs, the secret must not be in it.
    t = await startTestApp({ FETCH_ALLOW_HOSTS: '127.0.0.1', LOG_LEVEL: 'trace' });
    api = client(t.url, t.adminKey);
    const credentials = { access_key: s3.accessKey, secret_access_key: s3.secretKey };
    const parameters = { bucket: 'vault', endpoint: s3.endpoint, credentials };
    const created = await api.post('/v1/storage/storages', { name: 'saved', type: 's3', parameters });
    expect(created.status, created.text).toBe(200);
    id = created.body.data.id as number;
  });
  afterAll(async () => {
    await t?.close();
    await s3?.stop();
  });

  describe.each(OBJECT_MEMBERS)('$type $path', ({ type, path, message, parameters }) => {
    it.each(NOT_OBJECTS)('refuses %s with 422 at the member, on create and on change', async (_label, value) => {
      const created = await api.post('/v1/storage/storages', { name: 'vault', type, parameters: parameters(value) });
      // The saved storage is s3: a change within s3 merges the parameters, a change to another type replaces them.
      const changed = await api.patch(`/v1/storage/storages/${id}`, { type, parameters: parameters(value) });
      for (const res of [created, changed]) {
        expect(res.status, res.text).toBe(422);
        expect(res.body.error_code).toBe('9000');
        expect(res.body.error_details[path], res.text).toEqual([message]);
        expect(Object.keys(res.body.error_details).filter((key) => key.startsWith(`${path}.`))).toEqual([]);
        expect(res.text).not.toContain(SECRET);
      }
    });
  });

  it('logs no part of the secret, and no error', () => {
    expect(t.logs.length).toBeGreaterThan(NOT_OBJECTS.length * OBJECT_MEMBERS.length);
    for (const part of secretParts()) expect(t.logs.filter((line) => line.includes(part))).toEqual([]);
    expect(t.logs.filter((line) => JSON.parse(line).level === 'error')).toEqual([]);
  });
});
