/**
 * An unknown member is refused with 422 at its field path, and its message names the known member of that object
 * it most likely misspells, wherever members are checked: bodies and query strings through the validation pipe,
 * the edit request's own validation (union variants included), storage parameters and the batch input object.
 * Black box, over real HTTP; the distance rule itself is a table in libs/common (unknown-member.spec.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from './helpers/http';
import { startTestApp, type TestApp } from './helpers/test-app';

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp();
});

afterAll(async () => {
  await app?.close();
});

const api = () => client(app.url, app.adminKey);
const suggests = (name: string, subject = 'unknown member') =>
  `${subject}; did you mean "${name}"? No other members are allowed`;
const NO_SUGGESTION = 'unknown member; no other members are allowed';
const INPUT = 'https://images.example.com/shoe.jpg';

/** Sends `body`, expects a 422 with exactly `details`, and each message in error_message too. */
async function expectRefusal(method: 'POST' | 'GET', path: string, body: unknown, details: Record<string, string[]>) {
  const res = method === 'POST' ? await api().post(path, body) : await api().get(path);
  expect(res.status, res.text).toBe(422);
  expect(res.body.error_code).toBe('9000');
  expect(res.body.error_details).toEqual(details);
  for (const [message] of Object.values(details)) expect(res.body.error_message).toContain(`${message}.`);
}

describe('an unknown member names the closest known one', () => {
  it('in a body checked by the validation pipe (POST /v1/keys), at every level', async () => {
    await expectRefusal(
      'POST',
      '/v1/keys',
      { name: 'ok', scopes: ['storage'], scopse: [], colour: 'red', rate_limit: { per_secnd: 2 } },
      {
        scopse: [suggests('scopes')],
        colour: [NO_SUGGESTION],
        'rate_limit.per_secnd': [suggests('per_second')],
      },
    );
  });

  it('in a query string', async () => {
    await expectRefusal('GET', '/v1/keys?acount=default', undefined, { acount: [suggests('account')] });
    await expectRefusal('GET', '/v1/keys?owner=default', undefined, { owner: [NO_SUGGESTION] });
  });

  it('in an edit request, down to its nested options', async () => {
    await expectRefusal(
      'POST',
      '/v1/image/edit',
      { input: INPUT, operations: { resizng: { width: 10 }, adjustments: { contrst: 5 } } },
      {
        'operations.resizng': [suggests('resizing')],
        'operations.adjustments.contrst': [suggests('contrast')],
      },
    );
    await expectRefusal(
      'POST',
      '/v1/image/edit',
      { input: INPUT, operations: { resizing: { widht: 10, zoom: 2 } }, outptu: {} },
      {
        'operations.resizing.widht': [suggests('width')],
        'operations.resizing.zoom': [NO_SUGGESTION],
        outptu: [suggests('output')],
      },
    );
  });

  it('in a union variant: a member of that variant only', async () => {
    await expectRefusal(
      'POST',
      '/v1/image/edit',
      { input: INPUT, operations: { resizing: { width: 10, fit: { type: 'outpaint', feathring: '5%' } } } },
      {
        'operations.resizing.fit.feathring': [
          suggests('feathering', 'feathring is not a member of fit type "outpaint"'),
        ],
      },
    );
    // `feathering` belongs to the outpaint variant: a crop fit suggests nothing.
    await expectRefusal(
      'POST',
      '/v1/image/edit',
      { input: INPUT, operations: { resizing: { width: 10, fit: { type: 'crop', feathring: '5%' } } } },
      {
        'operations.resizing.fit.feathring': [
          'feathring is not a member of fit type "crop"; no other members are allowed',
        ],
      },
    );
  });

  it('in storage parameters', async () => {
    await expectRefusal(
      'POST',
      '/v1/storage/storages',
      {
        name: 'typos',
        type: 's3',
        parameters: {
          bucket: 'photos',
          pth: 'in',
          credentials: { access_key: 'a', secret_access_key: 'b', sesion_token: 'c' },
        },
      },
      {
        'parameters.pth': [suggests('path')],
        'parameters.credentials.sesion_token': [NO_SUGGESTION],
      },
    );
    await expectRefusal(
      'POST',
      '/v1/storage/storages',
      {
        name: 'typos',
        type: 'web_folder',
        parameters: { base_url: 'https://images.example.com/', baseurl: 'https://images.example.com/' },
      },
      { 'parameters.baseurl': [suggests('base_url')] },
    );
  });

  it("in a task request, its own members included (webhook_url is read apart from the edit's)", async () => {
    for (const path of ['/v1/image/edit/batch', '/v1/image/edit/async']) {
      await expectRefusal(
        'POST',
        path,
        { input: INPUT, webhok_url: 'https://hooks.example.com/', ouptut: {} },
        {
          webhok_url: [suggests('webhook_url')],
          ouptut: [suggests('output')],
        },
      );
    }
  });

  it('in the object form of a batch input', async () => {
    await expectRefusal(
      'POST',
      '/v1/image/edit/batch',
      { input: { source: 'storage://in/shoes/', recursiv: true } },
      { 'input.recursiv': [suggests('recursive')] },
    );
  });
});
