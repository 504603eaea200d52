import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editImage, fetchResult } from './helpers/edit-client';
import { Automatic1111Fake } from './helpers/fake-generators/automatic1111';
import { ComfyUiFake } from './helpers/fake-generators/comfyui';
import { OpenAiFake } from './helpers/fake-generators/openai';
import { startImageServer, type ImageServer } from './helpers/image-server';
import {
  boxWhere,
  createScene,
  isProductRed,
  PRODUCT,
  productColour,
  productImage,
  rawOf,
} from './helpers/scene-fixtures';
import { startTestApp, type TestApp } from './helpers/test-app';

/*
 * The service configured with each HTTP generator (GENERATIVE_BACKEND), against the protocol-faithful fakes of
 * test/helpers/fake-generators: scenes and edits go through the real API, the generator's answer is composited
 * with the product's own pixels, and a failing generator is a 502 that names it and never its credentials.
 */

let images: ImageServer;
const started: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  images = await startImageServer();
  images.put('/bottle.png', await productImage());
});

afterAll(async () => {
  for (const closable of started.reverse()) await closable.close();
  await images?.stop();
});

async function serviceWith(env: Record<string, string>): Promise<TestApp> {
  const app = await startTestApp({ FETCH_ALLOW_HOSTS: '127.0.0.1', GENERATIVE_RETRIES: '0', ...env });
  started.push(app);
  return app;
}

/** The product's interior pixels, at a 1:1 placement at (left, top), equal the input's. */
function productKept(image: Awaited<ReturnType<typeof rawOf>>, left: number, top: number): boolean {
  for (let y = 100; y < PRODUCT.box.height - 2; y += 7) {
    for (let x = 2; x < PRODUCT.box.width - 2; x += 7) {
      const o = ((top + y) * image.width + left + x) * image.channels;
      const expected = productColour(x, y);
      if (image.data[o] !== expected[0] || image.data[o + 1] !== expected[1] || image.data[o + 2] !== expected[2])
        return false;
    }
  }
  return true;
}

describe('ComfyUI', () => {
  let comfy: ComfyUiFake;
  let app: TestApp;

  beforeAll(async () => {
    comfy = await new ComfyUiFake().start();
    started.push(comfy);
    app = await serviceWith({ GENERATIVE_BACKEND: 'comfyui', GENERATIVE_URL: comfy.url, GENERATIVE_POLL_MS: '20' });
  });

  it('queues one prompt per image, and the product keeps its own pixels on what the generator painted', async () => {
    const res = await createScene(app, {
      object: { image_url: images.url('/bottle.png'), scale: 0.5 },
      scene: { prompt: 'sunlit kitchen counter, morning light', negative_prompt: 'people, text', steps: 20 },
      output: { number_of_images: 2 },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.profiling.backend).toBe('comfyui');
    expect(comfy.prompts.size).toBe(2);
    const texts = [...comfy.prompts.values()].map((workflow) => JSON.stringify(workflow));
    for (const text of texts) {
      expect(text).toContain('sunlit kitchen counter, morning light');
      expect(text).toContain('people, text');
    }
    // a different seed per image
    expect(texts[0]).not.toEqual(texts[1]);
    for (const output of res.body.data.output) {
      const image = await rawOf(await fetchResult(app, output.tmp_url));
      expect([image.width, image.height]).toEqual([1024, 1024]);
      expect(boxWhere(image, isProductRed)).toEqual({ left: 384, top: 256, right: 640, bottom: 768 });
      expect(productKept(image, 384, 256)).toBe(true);
    }
  });

  it('answers 502 naming ComfyUI when it refuses the prompt', async () => {
    comfy.fail('POST /prompt', {
      status: 400,
      body: {
        error: { type: 'prompt_outputs_failed_validation', message: 'Prompt outputs failed validation', details: '' },
        node_errors: {},
      },
    });
    const res = await createScene(app, {
      object: { image_url: images.url('/bottle.png') },
      scene: { prompt: 'oak table' },
      output: { number_of_images: 1 },
    });
    expect(res.status).toBe(502);
    expect(res.body.error_code).toBe('1803');
    expect(res.body.error_message).toContain('ComfyUI at 127.0.0.1');
  });

  it('keeps shadows local: no prompt reaches the generator', async () => {
    const before = comfy.prompts.size;
    const res = await createScene(app, {
      object: { image_url: images.url('/bottle.png') },
      scene: { effect: 'shadows' },
      output: { number_of_images: 1 },
    });
    expect(res.status, res.text).toBe(200);
    expect(comfy.prompts.size).toBe(before);
  });
});

describe('Automatic1111', () => {
  it('outpaints an edit through img2img with a mask, keeping the image inside, and hides its password in errors', async () => {
    const a1111 = await new Automatic1111Fake({ auth: 'atelier:very-secret-password' }).start();
    started.push(a1111);
    const app = await serviceWith({
      GENERATIVE_BACKEND: 'automatic1111',
      GENERATIVE_URL: a1111.url,
      GENERATIVE_API_KEY: 'atelier:very-secret-password',
    });
    const res = await editImage(app, {
      input: images.url('/bottle.png'),
      operations: {
        background: { color: '#ffffff' },
        resizing: { fit: { type: 'outpaint', outpaint_by: '25% 10%', feathering: '0%' } },
      },
      output: { format: 'png' },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.output).toMatchObject({ width: 600, height: 840 });
    const calls = a1111.requests.filter((request) => request.path === '/sdapi/v1/img2img');
    expect(calls).toHaveLength(1);
    const image = await rawOf(await fetchResult(app, res.body.data.output.tmp_url));
    // the bottle sits 100 px in and 70 px down, its own pixels kept
    expect(productKept(image, 100 + PRODUCT.box.left, 70 + PRODUCT.box.top)).toBe(true);

    a1111.fail('POST /sdapi/v1/img2img', {
      status: 500,
      body: { error: 'RuntimeError', detail: 'CUDA out of memory', body: '', errors: '' },
    });
    const failed = await editImage(app, {
      input: images.url('/bottle.png'),
      operations: { resizing: { fit: { type: 'outpaint', outpaint_by: '10%' } } },
    });
    expect(failed.status).toBe(502);
    expect(failed.body.error_message).toContain('Automatic1111');
    expect(failed.text).not.toContain('very-secret-password');
    expect(app.logs.join('\n')).not.toContain('very-secret-password');
  });
});

describe('OpenAI-compatible images API', () => {
  it('restyles an image through /v1/images/edits, and never repeats the key', async () => {
    const openai = await new OpenAiFake({ apiKey: 'sk-live-abcdef0123456789', echoKey: true }).start();
    started.push(openai);
    const app = await serviceWith({
      GENERATIVE_BACKEND: 'openai',
      GENERATIVE_URL: openai.url,
      GENERATIVE_API_KEY: 'sk-live-abcdef0123456789',
    });
    const res = await editImage(app, {
      input: images.url('/bottle.png'),
      operations: { generative: { style_transfer: { prompt: 'watercolour, pastel tones' } } },
      output: { format: 'png' },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.output).toMatchObject({ width: 400, height: 700 });
    expect(openai.requests.some((request) => request.path === '/v1/images/edits')).toBe(true);

    const wrong = await serviceWith({
      GENERATIVE_BACKEND: 'openai',
      GENERATIVE_URL: openai.url,
      GENERATIVE_API_KEY: 'sk-wrong-key-999999999',
    });
    const refused = await editImage(wrong, {
      input: images.url('/bottle.png'),
      operations: { generative: { style_transfer: { prompt: 'watercolour, pastel tones' } } },
    });
    expect(refused.status).toBe(502);
    expect(refused.text).not.toContain('sk-wrong-key-999999999');
    expect(wrong.logs.join('\n')).not.toContain('sk-wrong-key-999999999');
  });
});
