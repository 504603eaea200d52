import dns from 'node:dns';
import { isIP } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installConnectGuard, type ConnectGuard } from './helpers/connect-guard';
import { client } from './helpers/http';
import { startS3Server, type S3TestServer } from './helpers/s3-server';
import { startTestApp, type TestApp } from './helpers/test-app';

/**
 * Property-based fuzzing of every JSON route and the upload route, over real HTTP: generated bodies (any JSON
 * value), valid requests mutated one member at a time (values of every type, members named after
 * `Object.prototype`, deep nesting) and raw bytes that are not JSON. Whatever arrives, the service answers
 * below 500, and every refusal is the Error body with `x-request-id`.
 *
 * Nothing leaves the machine: URLs in the seeds name loopback or private addresses the address policy refuses,
 * the connect guard fails any connection but the test's own to 127.0.0.1, and host-name lookups other than IP
 * literals are refused in this process, so a fuzzed `http://<random name>/` never reaches a DNS server.
 *
 * FUZZ_RUNS scales the run (default: 20,400 requests in all); FUZZ_SEED replays a run that failed.
 */
const SCALE = Number(process.env.FUZZ_RUNS ?? 1);
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2_147_483_647);
/** Requests sent at once in each property run. */
const BATCH = 6;

/** Member names that broke validators or slipped past unknown-member checks in other services. */
const PROTOTYPE_NAMES = [
  'constructor',
  '__proto__',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'isPrototypeOf',
  'propertyIsEnumerable',
  'toLocaleString',
  '__defineGetter__',
  '__lookupGetter__',
];

const SEEDS: Record<string, unknown> = {
  key: { name: 'fuzzed key', scopes: ['image_editing', 'storage'], quota: 10 },
  storage: {
    name: 'fuzzed',
    type: 's3',
    parameters: {
      bucket: 'bucket',
      path: 'photos/',
      endpoint: 'http://127.0.0.2:9/',
      region: 'eu-west-1',
      credentials: { access_key: 'AKIAFUZZ', secret_access_key: 'fuzz-secret' },
    },
  },
  webFolder: { name: 'fuzzed-web', type: 'web_folder', parameters: { base_url: 'http://10.0.0.1/files/' } },
  edit: {
    input: 'http://127.0.0.2/shoe.jpg',
    operations: {
      restorations: { decompress: 'moderate' },
      background: { color: '#ffffff' },
      padding: '5% 10%',
      resizing: { width: 800, height: 'auto', fit: { type: 'crop', crop: 'center' } },
      adjustments: { hdr: { intensity: 40, stitching: true }, brightness: 10, contrast: -5 },
    },
    output: { destination: 'storage://nowhere/out/', format: { type: 'webp', quality: 80 }, metadata: { dpi: 72 } },
  },
  batch: {
    input: { source: 'storage://nowhere/in/', recursive: true },
    operations: { resizing: { width: '50%', height: '50%' } },
    output: { destination: 'storage://nowhere/out/', format: 'jpeg' },
    webhook_url: 'http://169.254.169.254/hook',
  },
  async: {
    input: 'http://[::1]/a.png',
    operations: { adjustments: { sharpness: 30 } },
    output: 'storage://nowhere/one.png',
    webhook_url: 'http://10.1.2.3/hook',
  },
};

/** A JSON body in bytes, and the content type it is sent with. */
interface Body {
  bytes: string;
  contentType: string;
}

/** A path inside a JSON value: object members and array positions. */
type Path = Array<string | number>;

function pathsOf(value: unknown, prefix: Path = []): Path[] {
  const paths: Path[] = [prefix];
  if (Array.isArray(value)) value.forEach((item, index) => paths.push(...pathsOf(item, [...prefix, index])));
  else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) paths.push(...pathsOf(item, [...prefix, key]));
  }
  return paths;
}

/** A copy of `value` with the member at `path` replaced (or deleted when `replacement` is `DELETE`). */
const DELETE = Symbol('delete');
function withChange(value: unknown, path: Path, replacement: unknown): unknown {
  if (path.length === 0) return replacement === DELETE ? undefined : replacement;
  const [head, ...rest] = path;
  const copy: any = Array.isArray(value) ? [...value] : { ...(value as object) };
  if (rest.length === 0 && replacement === DELETE) {
    if (Array.isArray(copy)) copy.splice(head as number, 1);
    else delete copy[head];
  } else {
    // defineProperty: a member named `__proto__` must become an own member, as JSON.parse makes it
    Object.defineProperty(copy, head, {
      value: withChange(copy[head], rest, replacement),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return copy;
}

/** Nested arrays or objects `depth` levels deep, as text (no recursion: depths of thousands are the point). */
function deepText(depth: number, kind: 'array' | 'object', leaf: string): string {
  return kind === 'array'
    ? `${'['.repeat(depth)}${leaf}${']'.repeat(depth)}`
    : `${'{"a":'.repeat(depth)}${leaf}${'}'.repeat(depth)}`;
}

const anyValue = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  fc.constantFrom(null, true, 0, -1, 1e308, -1e-308, 2 ** 31, 2 ** 53, '', ' ', '%', '50%', 'auto', '#zzz'),
  fc.string({ unit: 'binary', maxLength: 64 }),
  fc.constantFrom(...PROTOTYPE_NAMES).map((name) => ({ [name]: 1 })),
);

/** A seed with one change: a value replaced, a member deleted, or a member added (often a prototype name). */
function mutated(seed: unknown): fc.Arbitrary<unknown> {
  const paths = pathsOf(seed);
  const objectPaths = paths.filter((path) => {
    const target = path.reduce<any>((node, key) => node?.[key], seed);
    return target !== null && typeof target === 'object' && !Array.isArray(target);
  });
  return fc.oneof(
    fc.tuple(fc.constantFrom(...paths), anyValue).map(([path, value]) => withChange(seed, path, value)),
    fc.constantFrom(...paths.filter((path) => path.length > 0)).map((path) => withChange(seed, path, DELETE)),
    fc
      .tuple(
        fc.constantFrom(...objectPaths),
        fc.oneof(fc.constantFrom(...PROTOTYPE_NAMES), fc.string({ maxLength: 12 })),
        anyValue,
      )
      .map(([path, name, value]) => withChange(seed, [...path, name], value)),
  );
}

/** Bodies for one route: mutated seeds, any JSON, deep nesting, and bytes that are not (only) JSON. */
function bodies(seed: unknown): fc.Arbitrary<Body> {
  const json = (value: unknown): Body => ({ bytes: JSON.stringify(value) ?? 'null', contentType: 'application/json' });
  return fc.oneof(
    { weight: 6, arbitrary: mutated(seed).map(json) },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 6 }).map(json) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.integer({ min: 10, max: 6000 }), fc.constantFrom('array' as const, 'object' as const))
        .map(([depth, kind]) => ({ bytes: deepText(depth, kind, '1'), contentType: 'application/json' })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.integer({ min: 10, max: 4000 }), fc.constantFrom('array' as const, 'object' as const))
        .map(([depth, kind]) => {
          const text = JSON.stringify(seed);
          // the nesting inside a member of an otherwise valid request
          return {
            bytes: `${text.slice(0, -1)},"operations2":${deepText(depth, kind, '0')}}`,
            contentType: 'application/json',
          };
        }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        bytes: fc.oneof(fc.string({ unit: 'binary', maxLength: 200 }), fc.constant(JSON.stringify(seed).slice(0, -3))),
        contentType: fc.constantFrom(
          'application/json',
          'application/json; charset=utf-16',
          'application/x-www-form-urlencoded',
          'text/plain',
          'application/xml',
          'application/octet-stream',
        ),
      }),
    },
  );
}

interface Reply {
  status: number;
  requestId: string | null;
  text: string;
}

function assertServiceAnswer(reply: Reply, sent: string): void {
  const context = `${reply.status} ${reply.text.slice(0, 300)} <- ${sent.slice(0, 300)}`;
  expect(reply.status, context).toBeLessThan(500);
  expect(reply.requestId, context).toBeTruthy();
  if (reply.status < 400) return;
  const parsed = JSON.parse(reply.text) as Record<string, any>;
  const error = reply.status === 429 ? parsed.detail : parsed;
  expect(error, context).toEqual({
    error_code: expect.any(String),
    error_type: expect.any(String),
    error_message: expect.any(String),
    error_details: expect.any(Object),
  });
}

describe('fuzzing every JSON route and the upload route', () => {
  let app: TestApp;
  let guard: ConnectGuard;
  const lookup = dns.promises.lookup;
  let sent = 0;

  beforeAll(async () => {
    guard = installConnectGuard(['127.0.0.1']);
    // The address policy resolves names itself: only IP literals and localhost resolve in this process.
    (dns.promises as any).lookup = (name: string, options: unknown) =>
      isIP(name) || name === 'localhost'
        ? lookup(name, options as dns.LookupAllOptions)
        : Promise.reject(Object.assign(new Error(`fuzz: no lookup of ${name}`), { code: 'ENOTFOUND' }));
    app = await startTestApp({ LOG_LEVEL: 'warn' });
  });

  afterAll(async () => {
    await app?.close();
    (dns.promises as any).lookup = lookup;
    guard.restore();
  });

  /** One generated request, as data, so that a failure prints what was sent. */
  interface Request {
    method: string;
    path: string;
    body?: Body;
    /** For the upload route: the file part (the data part is `body`). */
    file?: { bytes: Uint8Array; name: string };
  }

  async function send(request: Request): Promise<void> {
    const headers: Record<string, string> = { authorization: `Bearer ${app.adminKey}` };
    let payload: string | FormData | undefined = request.body?.bytes;
    if (request.file) {
      const form = new FormData();
      form.append('file', new Blob([request.file.bytes]), request.file.name || 'image.jpg');
      form.append('data', request.body?.bytes ?? '');
      payload = form;
    } else if (request.body) headers['content-type'] = request.body.contentType;
    const response = await fetch(`${app.url}${request.path}`, { method: request.method, headers, body: payload });
    sent++;
    const reply = {
      status: response.status,
      requestId: response.headers.get('x-request-id'),
      text: await response.text(),
    };
    assertServiceAnswer(reply, `${request.method} ${request.path} ${request.body?.bytes ?? ''}`);
  }

  async function fuzz(runs: number, arbitrary: fc.Arbitrary<Request>): Promise<void> {
    await fc.assert(
      fc.asyncProperty(fc.array(arbitrary, { minLength: BATCH, maxLength: BATCH }), async (requests) => {
        await Promise.all(requests.map(send));
      }),
      { numRuns: Math.ceil((runs * SCALE) / BATCH), seed: SEED },
    );
  }

  const routes: Array<[string, string, string, unknown, number]> = [
    ['keys', 'POST', '/v1/keys', SEEDS.key, 2000],
    ['storages (s3)', 'POST', '/v1/storage/storages', SEEDS.storage, 2000],
    ['storages (web folder)', 'POST', '/v1/storage/storages', SEEDS.webFolder, 1000],
    ['storage changes', 'PATCH', '/v1/storage/storages/1', SEEDS.storage, 1200],
    ['edits', 'POST', '/v1/image/edit', SEEDS.edit, 4200],
    ['batches', 'POST', '/v1/image/edit/batch', SEEDS.batch, 3000],
    ['asynchronous edits', 'POST', '/v1/image/edit/async', SEEDS.async, 3000],
  ];

  it.each(routes)('%s: %s %s', async (_name, method, path, seed, runs) => {
    await fuzz(
      runs,
      bodies(seed).map((body) => ({ method, path, body })),
    );
  });

  it('uploads: a fuzzed data part beside a file of random bytes', async () => {
    const uploadSeed: Record<string, unknown> = { ...(SEEDS.edit as Record<string, unknown>) };
    delete uploadSeed.input; // the upload is the input
    await fuzz(
      2000,
      fc
        .tuple(bodies(uploadSeed), fc.uint8Array({ maxLength: 512 }), fc.string({ maxLength: 40 }))
        .map(([body, bytes, name]) => ({ method: 'POST', path: '/v1/image/edit/upload', body, file: { bytes, name } })),
    );
  });

  it('path ids and queries: any text where an id or a filter goes', async () => {
    const paths = ['/v1/storage/storages/', '/v1/keys/', '/v1/image/edit/batch/', '/v1/image/edit/async/'];
    const ids = fc.oneof(
      fc.string({ maxLength: 24 }),
      fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
      fc.constantFrom('2147483647', '2147483648', '999999999999999', '0', '-1', '1e3', '0x10', ' 1'),
    );
    await fuzz(
      2000,
      fc.tuple(fc.constantFrom(...paths), ids, fc.constantFrom('GET', 'DELETE')).map(([path, id, method]) => ({
        method,
        path:
          path === '/v1/keys/' && method === 'GET'
            ? `/v1/keys?account=${encodeURIComponent(id)}`
            : `${path}${encodeURIComponent(id)}`,
      })),
    );
  });

  it('sent every request, and the address policy (not the guard) stopped every private destination', () => {
    expect(sent).toBeGreaterThanOrEqual(Math.floor(20_000 * SCALE));
    // The guard also stops public hosts (AWS's default endpoint); a private or loopback one here would mean the
    // service tried to connect where its own policy should have refused first.
    const isPrivate = /^(127\.|10\.|169\.254\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.|::1|\[::1\]|localhost)/;
    expect(guard.refused.filter((entry) => isPrivate.test(entry))).toEqual([]);
  });
});

/**
 * `null` in a PATCH body has a meaning (it removes a member), so the generic rule "null is absent" does not apply
 * there: every member of every PATCH body, at every depth, set to `null` one at a time, against a storage and a key
 * that exist (a fuzzed id that does not exist stops at the 404 and finds nothing).
 */
describe('nulls in every member of every PATCH body', () => {
  let app: TestApp;
  let s3: S3TestServer;

  beforeAll(async () => {
    s3 = await startS3Server(['patched']);
    app = await startTestApp({ LOG_LEVEL: 'warn', FETCH_ALLOW_HOSTS: '127.0.0.1' });
  });

  afterAll(async () => {
    await app?.close();
    await s3?.stop();
  });

  it('answers below 500 with the Error body or the changed resource, every time', async () => {
    const api = client(app.url, app.adminKey);
    const storageBody = {
      name: 'patched',
      type: 's3',
      parameters: {
        bucket: 'patched',
        path: 'in/',
        endpoint: s3.endpoint,
        region: 'us-east-1',
        credentials: { access_key: s3.accessKey, secret_access_key: s3.secretKey },
      },
    };
    const keyBody = { name: 'patched key', scopes: ['image_editing'], quota: 10, rate_limit: { per_second: 5 } };
    const storage = await api.post('/v1/storage/storages', storageBody);
    expect(storage.status, JSON.stringify(storage.body)).toBe(200);
    const key = await api.post('/v1/keys', keyBody);
    expect(key.status, JSON.stringify(key.body)).toBe(200);
    const targets: Array<[string, unknown]> = [
      [`/v1/storage/storages/${storage.body.data.id}`, storageBody],
      [`/v1/storage/storages/${storage.body.data.id}`, { type: 'web_folder', parameters: { base_url: s3.endpoint } }],
      [`/v1/keys/${key.body.data.id}`, keyBody],
    ];
    let sent = 0;
    for (const [path, seed] of targets) {
      for (const member of pathsOf(seed)) {
        const body = withChange(seed, member, null);
        const res = await fetch(`${app.url}${path}`, {
          method: 'PATCH',
          headers: { authorization: `Bearer ${app.adminKey}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        sent++;
        assertServiceAnswer(
          { status: res.status, requestId: res.headers.get('x-request-id'), text: await res.text() },
          `PATCH ${path} ${JSON.stringify(body)}`,
        );
      }
    }
    expect(sent).toBeGreaterThan(20);
  });

  it('takes a null type, name or parameters as absent: the storage stays as it was', async () => {
    const api = client(app.url, app.adminKey);
    const list = await api.get('/v1/storage/storages');
    const storage = list.body.data.find((item: { name: string }) => item.name === 'patched');
    const res = await api.patch(`/v1/storage/storages/${storage.id}`, { type: null, name: null, parameters: {} });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({ name: 'patched', type: 's3', parameters: { bucket: 'patched' } });
  });
});
