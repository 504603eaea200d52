import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import { Automatic1111Fake } from '../../../../test/helpers/fake-generators/automatic1111';
import { json, promptColour } from '../../../../test/helpers/fake-generators/fake-server';
import {
  HEIGHT,
  OBJECT_RGB,
  RecordingLocal,
  WIDTH,
  at,
  generativeConfig,
  outpaintJob,
  pixelsOf,
  sceneJob,
  styleJob,
  warningsDuring,
} from '../../../../test/helpers/fake-generators/jobs';
import { rejected } from '../../../../test/helpers/rejected';
import { Automatic1111Backend } from './automatic1111.backend';

let fake: Automatic1111Fake;
afterEach(() => fake.close());

async function start(options: ConstructorParameters<typeof Automatic1111Fake>[0] = {}) {
  fake = await new Automatic1111Fake(options).start();
}

function backend(overrides: Parameters<typeof generativeConfig>[0] = {}) {
  return new Automatic1111Backend(
    generativeConfig({
      backend: 'automatic1111',
      url: fake.url,
      models: { v1: 'sd_xl_base_1.0.safetensors [6ce0161689]' },
      ...overrides,
    }),
    new RecordingLocal(),
  );
}

function sent(): Record<string, unknown> {
  return json(fake.to('POST /sdapi/v1/img2img')[0]) as Record<string, unknown>;
}

async function base64Pixels(value: unknown): Promise<{ data: Buffer; width: number; channels: number | undefined }> {
  const bytes = Buffer.from(String(value), 'base64');
  const { channels, width } = await sharp(bytes).metadata();
  return { data: await sharp(bytes).removeAlpha().raw().toBuffer(), width: width!, channels };
}

describe('Automatic1111Backend', () => {
  it('sends a scene as img2img: init image, L mask white outside the object, the job mapped', async () => {
    await start();
    const result = await backend().scene(sceneJob(undefined, { preference: 'optimal' }));
    expect(fake.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      'GET /sdapi/v1/sd-models',
      'POST /sdapi/v1/img2img',
    ]);
    const body = sent();
    expect(body).toMatchObject({
      prompt: 'a sunny beach',
      negative_prompt: 'people',
      steps: 25,
      seed: 1002,
      denoising_strength: 1,
      inpaint_full_res: false,
      inpainting_fill: 2,
      inpainting_mask_invert: 0,
      mask_blur: 4,
      width: 96,
      height: 64,
      cfg_scale: 7,
      sampler_name: 'Euler a',
      override_settings: { sd_model_checkpoint: 'sd_xl_base_1.0.safetensors [6ce0161689]' },
      send_images: true,
      save_images: false,
    });
    const mask = await base64Pixels(body.mask);
    expect(mask.channels).toBe(1);
    expect(at(mask, 0, 0)).toEqual([255, 255, 255]);
    expect(at(mask, WIDTH / 2, HEIGHT / 2)).toEqual([0, 0, 0]);
    const init = await base64Pixels((body.init_images as string[])[0]);
    expect(at(init, WIDTH / 2, HEIGHT / 2)).toEqual(OBJECT_RGB);

    const out = await pixelsOf(result.image);
    expect(at(out, 1, 1)).toEqual(promptColour('a sunny beach'));
    expect(at(out, WIDTH / 2, HEIGHT / 2)).toEqual(OBJECT_RGB);
    expect(result.details).toMatchObject({ generator: 'automatic1111', seed: 1002, size: '96x64' });
  });

  it('captions the image for generate: true, with the guidelines appended', async () => {
    await start({ caption: 'a blue box on a grey floor' });
    const text = { generate: true, guidelines: 'soft morning light', subject: 'a blue box' };
    await backend().scene(sceneJob(undefined, { text }));
    expect(json(fake.to('POST /sdapi/v1/interrogate')[0])).toMatchObject({ model: 'clip', image: expect.any(String) });
    expect(sent().prompt).toBe('a blue box on a grey floor, soft morning light');
  });

  it('asks for multiples of 8 and leaves the model to the server when none is configured', async () => {
    await start();
    await backend({ models: {} }).scene(sceneJob());
    const body = sent();
    expect(body.override_settings).toBeUndefined();
    expect(fake.to('GET /sdapi/v1/sd-models')).toHaveLength(0);
    expect([body.width, body.height]).toEqual([96, 64]);
  });

  it('knows a model by any name A1111 resolves: title, model name, file name, hash', async () => {
    await start();
    for (const name of ['sd_xl_base_1.0', 'sd_xl_base_1.0.safetensors', '6ce0161689']) {
      await backend({ models: { v1: name } }).scene(sceneJob());
    }
    const sent = fake
      .to('POST /sdapi/v1/img2img')
      .map((request) => (json(request) as { override_settings: unknown }).override_settings);
    expect(sent).toEqual(
      ['sd_xl_base_1.0', 'sd_xl_base_1.0.safetensors', '6ce0161689'].map((sd_model_checkpoint) => ({
        sd_model_checkpoint,
      })),
    );
  });

  it('refuses a model the server does not have, before generating', async () => {
    await start();
    const { result: error, warnings } = await warningsDuring(() =>
      rejected(backend({ models: { v1: 'dreamshaper_8' } }).scene(sceneJob())),
    );
    expect(error.status).toBe(502);
    // the operator's model name in the message; the generator's list in the log only
    expect(error.message).toMatch(/^Automatic1111 at 127\.0\.0\.1:\d+ has no model "dreamshaper_8"$/);
    expect(warnings).toContain('it has: v1-5-pruned-emaonly');
    expect(fake.to('POST /sdapi/v1/img2img')).toHaveLength(0);
  });

  it('outpaints with the mask as given (fill from the surroundings, blur from the feather)', async () => {
    await start();
    const out = await pixelsOf(await backend().outpaint(outpaintJob()));
    expect(sent()).toMatchObject({ inpainting_fill: 0, mask_blur: 4, denoising_strength: 1, steps: 25, seed: 7 });
    expect(at(out, 0, 0)).toEqual(promptColour('a meadow'));
    expect(at(out, 40, 30)).toEqual([90, 140, 60]);
  });

  it('style transfer is an img2img without a mask at the style denoise', async () => {
    await start();
    const out = await pixelsOf(
      await backend().styleTransfer(styleJob({ styleStrength: 1, denoisingStrength: 1, depthStrength: 0 })),
    );
    const body = sent();
    expect(body.mask).toBeUndefined();
    expect(body.denoising_strength).toBe(1);
    expect(at(out, 5, 5)).toEqual(promptColour('oil painting'));
  });

  it('sends user:pass as HTTP Basic and never shows the password', async () => {
    await start({ auth: 'atelier:s3cret-pass' });
    await backend({ apiKey: 'atelier:s3cret-pass' }).scene(sceneJob());
    expect(fake.to('POST /sdapi/v1/img2img')).toHaveLength(1);

    const { result: error, warnings } = await warningsDuring(() =>
      rejected(backend({ apiKey: 'atelier:wrong-pass' }).scene(sceneJob())),
    );
    expect(error.status).toBe(502);
    expect(error.message).toMatch(/^Automatic1111 at 127\.0\.0\.1:\d+ answered 401 \(GET \/sdapi\/v1\/sd-models\)$/);
    expect(warnings).toContain('HTTPException: Incorrect username or password');
    expect(error.message + warnings).not.toContain('wrong-pass');
  });

  it('reads FastAPI 422 details and A1111 500 bodies; a 500 is not retried', async () => {
    await start();
    fake.fail('POST /sdapi/v1/img2img', {
      status: 422,
      body: { detail: [{ loc: ['body', 'steps'], msg: 'value is not a valid integer', type: 'type_error.integer' }] },
    });
    const { result: invalid, warnings } = await warningsDuring(() => rejected(backend().scene(sceneJob())));
    expect(invalid.message).toMatch(/answered 422 \(POST \/sdapi\/v1\/img2img\)$/);
    expect(warnings).toContain(
      'answered 422 (POST /sdapi/v1/img2img); it said: body.steps: value is not a valid integer',
    );

    fake.requests.length = 0;
    const oom = {
      error: 'OutOfMemoryError',
      detail: '',
      body: '',
      errors: 'CUDA out of memory. Tried to allocate 20.00 MiB',
    };
    fake.fail('POST /sdapi/v1/img2img', { status: 500, body: oom }, 3);
    const { result: error, warnings: said } = await warningsDuring(() => rejected(backend().scene(sceneJob())));
    expect(error.status).toBe(502);
    expect(error.message).not.toContain('CUDA');
    expect(said).toContain('it said: OutOfMemoryError: CUDA out of memory');
    expect(fake.to('POST /sdapi/v1/img2img')).toHaveLength(1);
  });

  it('retries a 503 and a reset connection, at most config.retries times', async () => {
    await start();
    fake.fail('POST /sdapi/v1/img2img', { reset: true }, 1);
    fake.fail('POST /sdapi/v1/img2img', { status: 503, body: { detail: 'busy' } }, 1);
    await backend({ models: {} }).scene(sceneJob());
    expect(fake.to('POST /sdapi/v1/img2img')).toHaveLength(3);

    fake.requests.length = 0;
    fake.fail('POST /sdapi/v1/img2img', { status: 502, body: 'Bad Gateway' }, 10);
    const error = await rejected(backend({ models: {}, retries: 2 }).scene(sceneJob()));
    expect(error.message).toMatch(/^Automatic1111 at 127\.0\.0\.1:\d+ answered 502 \(POST \/sdapi\/v1\/img2img\)$/);
    expect(fake.to('POST /sdapi/v1/img2img')).toHaveLength(3);
  });

  it('answers 504 when a blocked request passes the time limit', async () => {
    await start();
    fake.fail('POST /sdapi/v1/img2img', { hang: true });
    const started = Date.now();
    const error = await rejected(backend({ models: {}, timeoutMs: 250 }).scene(sceneJob()));
    expect(error.codeName).toBe('GENERATOR_TIMEOUT');
    expect(error.status).toBe(504);
    expect(error.message).toMatch(/^Automatic1111 at 127\.0\.0\.1:\d+ did not finish within 250 ms/);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(fake.to('POST /sdapi/v1/img2img')).toHaveLength(1);
  });
});
