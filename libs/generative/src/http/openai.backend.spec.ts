import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import { multipart, promptColour } from '../../../../test/helpers/fake-generators/fake-server';
import {
  HEIGHT,
  RecordingLocal,
  WIDTH,
  at,
  generativeConfig,
  insideObject,
  pixelsOf,
  rejection,
  warningsDuring,
  sceneJob,
  styleJob,
} from '../../../../test/helpers/fake-generators/jobs';
import { OpenAiFake } from '../../../../test/helpers/fake-generators/openai';
import { rejected } from '../../../../test/helpers/rejected';
import { OpenAiBackend, openAiSize } from './openai.backend';

const KEY = 'sk-test-0123456789abcdefXYZ';
let fake: OpenAiFake;
afterEach(() => fake.close());

async function start(options: ConstructorParameters<typeof OpenAiFake>[0] = {}) {
  fake = await new OpenAiFake({ apiKey: KEY, ...options }).start();
}

function backend(overrides: Parameters<typeof generativeConfig>[0] = {}) {
  return new OpenAiBackend(
    generativeConfig({ backend: 'openai', url: fake.url, apiKey: KEY, models: { v1: 'gpt-image-1' }, ...overrides }),
    new RecordingLocal(),
  );
}

async function sentForm(): Promise<FormData> {
  return multipart(fake.to('POST /v1/images/edits')[0]);
}

describe('OpenAiBackend', () => {
  it('sends a scene as an edit: image, mask transparent outside the object, prompt with the negative, size', async () => {
    await start();
    const result = await backend().scene(sceneJob(undefined, { preference: 'best' }));
    const request = fake.to('POST /v1/images/edits')[0];
    expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
    const form = await sentForm();
    expect(Object.fromEntries([...form.entries()].filter(([, value]) => typeof value === 'string'))).toEqual({
      model: 'gpt-image-1',
      prompt: 'a sunny beach. Avoid: people',
      n: '1',
      size: '1536x1024',
      quality: 'high',
    });
    const mask = Buffer.from(await (form.get('mask') as File).arrayBuffer());
    const { data, info } = await sharp(mask).raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height, info.channels]).toEqual([WIDTH, HEIGHT, 4]);
    for (const [x, y] of [
      [0, 0],
      [WIDTH / 2, HEIGHT / 2],
      [WIDTH - 1, HEIGHT - 1],
      [32, 22],
      [31, 22],
    ]) {
      expect(data[(y * WIDTH + x) * 4 + 3]).toBe(insideObject(x, y) ? 255 : 0);
    }
    const out = await pixelsOf(result.image);
    expect([out.width, out.height]).toEqual([1536, 1024]);
    expect(at(out, 2, 2)).toEqual(promptColour('a sunny beach. Avoid: people'));
    expect(result.details).toMatchObject({ generator: 'openai', size: '1536x1024', seed: 'not supported' });
  });

  it('asks dall-e-2 for b64_json and a square size; fetches a URL answer', async () => {
    await start();
    await backend({ models: { v1: 'dall-e-2' } }).scene(sceneJob());
    const form = await sentForm();
    expect(form.get('response_format')).toBe('b64_json');
    expect(form.get('size')).toBe('256x256');
    expect(form.get('quality')).toBeNull();

    fake.requests.length = 0;
    fake.answerUrls = true;
    const out = await pixelsOf((await backend().scene(sceneJob())).image);
    expect(at(out, 2, 2)).toEqual(promptColour('a sunny beach. Avoid: people'));
    const download = fake.requests.find((request) => request.path.startsWith('/files/'));
    expect(download?.headers.authorization).toBe(`Bearer ${KEY}`); // same origin as the API: the key may go there
  });

  it('sends no mask for a style transfer and says the reference was not sent', async () => {
    await start();
    const out = await pixelsOf(await backend().styleTransfer(styleJob()));
    const form = await sentForm();
    expect(form.get('mask')).toBeNull();
    expect(form.getAll('image')).toHaveLength(1);
    expect(at(out, 0, 0)).toEqual(promptColour('oil painting'));
  });

  it('waits out a 429 Retry-After, then succeeds; insufficient_quota is final', async () => {
    await start();
    const limited = {
      status: 429,
      body: { error: { message: 'Rate limit reached', type: 'requests', param: null, code: 'rate_limit_exceeded' } },
    };
    fake.fail('POST /v1/images/edits', { ...limited, headers: { 'retry-after': '1' } });
    const started = Date.now();
    await backend().scene(sceneJob());
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(fake.to('POST /v1/images/edits')).toHaveLength(2);

    fake.requests.length = 0;
    const quota = {
      error: {
        message: 'You exceeded your current quota',
        type: 'insufficient_quota',
        param: null,
        code: 'insufficient_quota',
      },
    };
    fake.fail('POST /v1/images/edits', { status: 429, body: quota }, 3);
    const { result: error, warnings } = await warningsDuring(() => rejected(backend().scene(sceneJob())));
    expect(error.message).toMatch(
      /^OpenAI-compatible API at 127\.0\.0\.1:\d+ answered 429 \(POST \/v1\/images\/edits\)$/,
    );
    expect(warnings).toContain('it said: You exceeded your current quota (insufficient_quota');
    expect(error.retryable).toBe(false);
    expect(fake.to('POST /v1/images/edits')).toHaveLength(1);
  });

  it('answers 502, not 500, when a 200 is no JSON object (a proxy page, `null`)', async () => {
    await start();
    for (const body of ['<html><body>Welcome to nginx!</body></html>', 'null']) {
      fake.fail('POST /v1/images/edits', { status: 200, body, headers: { 'content-type': 'text/html' } });
      const { result: error, warnings } = await warningsDuring(() => rejected(backend().scene(sceneJob())));
      expect(error.status).toBe(502);
      expect(error.message).toMatch(
        /^OpenAI-compatible API at 127\.0\.0\.1:\d+ answered 200 without a JSON object \(POST \/v1\/images\/edits\)$/,
      );
      expect(warnings).toContain(`it said: ${body}`);
    }
  });

  it('never repeats the API key, even when the server echoes it', async () => {
    await start({ echoKey: true });
    const wrong = 'sk-live-WRONGKEY-9876543210abcdef';
    const { result: error, warnings } = await warningsDuring(() =>
      rejected(backend({ apiKey: wrong }).scene(sceneJob())),
    );
    expect(error.status).toBe(502);
    expect(error.message).toMatch(/answered 401 \(POST \/v1\/images\/edits\)$/);
    expect(warnings).toContain('it said: Incorrect API key provided: [redacted]');
    expect(error.message + warnings).not.toContain(wrong);
    expect(JSON.stringify(error)).not.toContain(wrong);
  });

  it('fails at once, without a retry, when the request is aborted', async () => {
    await start();
    fake.fail('POST /v1/images/edits', { hang: true });
    const controller = new AbortController();
    const reason = new Error('scene request over');
    setTimeout(() => controller.abort(reason), 80);
    expect(await rejection(backend().scene(sceneJob(undefined, { signal: controller.signal })))).toBe(reason);
    expect(fake.to('POST /v1/images/edits')).toHaveLength(1);
  });

  it.each([
    ['gpt-image-1', 1024, 1024, '1024x1024'],
    ['gpt-image-1', 1920, 1080, '1536x1024'],
    ['gpt-image-1', 768, 1365, '1024x1536'],
    [undefined, 1000, 980, '1024x1024'],
    ['dall-e-2', 1024, 1024, '1024x1024'],
    ['dall-e-2', 400, 400, '512x512'],
    ['gpt-image-2', 1440, 1440, '1440x1440'],
    ['gpt-image-2', 1365, 768, '1360x768'],
    ['gpt-image-2', 3000, 500, '1504x496'],
  ])('size for %s at %ix%i: %s', (model, width, height, size) => {
    expect(openAiSize(model, width, height)).toBe(size);
  });
});
