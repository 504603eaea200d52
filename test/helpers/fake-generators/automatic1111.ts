import { type Answer, FakeServer, type Raw, type RecordedRequest, decode, json, paint } from './fake-server';

/**
 * A fake Automatic1111 / Forge API (docs/generator-protocols.md, B): /sdapi/v1/img2img, /interrogate and /sd-models,
 * optional --api-auth (401 Basic), FastAPI's 422 `{detail: [...]}` for wrong types, A1111's
 * `{error, detail, body, errors}` for its own HTTPExceptions and crashes, one job at a time (the queue lock). It
 * "generates" the init image resized to width x height, moved towards the prompt's colour by denoising_strength
 * where the mask is white (an L/RGB mask; an RGBA mask with transparency is read from its alpha, opaque = paint).
 */

export interface Automatic1111FakeOptions {
  /** `user:pass`, as the server's --api-auth. */
  auth?: string;
  models?: string[];
  caption?: string;
}

const SAMPLERS = ['Euler a', 'Euler', 'DPM++ 2M', 'DPM++ SDE', 'DDIM'];

function a1111Error(status: number, error: string, detail: string, errors = ''): Answer {
  return { status, body: { error, detail, body: '', errors } };
}

export class Automatic1111Fake extends FakeServer {
  readonly auth?: string;
  models: string[];
  caption: string;
  /** A running img2img, which every other one waits for (A1111's queue_lock). */
  private lock: Promise<unknown> = Promise.resolve();

  constructor(options: Automatic1111FakeOptions = {}) {
    super();
    this.auth = options.auth;
    this.models = options.models ?? ['v1-5-pruned-emaonly.safetensors', 'sd_xl_base_1.0.safetensors'];
    this.caption = options.caption ?? 'a red sneaker standing on a wooden table';
  }

  protected async handle(request: RecordedRequest): Promise<Answer> {
    if (this.auth !== undefined) {
      const expected = `Basic ${Buffer.from(this.auth).toString('base64')}`;
      if (request.headers.authorization !== expected) {
        const detail = request.headers.authorization ? 'Incorrect username or password' : 'Not authenticated';
        return { ...a1111Error(401, 'HTTPException', detail), headers: { 'www-authenticate': 'Basic' } };
      }
    }
    const route = `${request.method} ${request.path}`;
    if (route === 'GET /sdapi/v1/sd-models') {
      return {
        status: 200,
        body: this.models.map((file) => ({
          title: `${file} [6ce0161689]`,
          model_name: file.replace(/\.[^.]*$/, ''),
          hash: '6ce0161689',
          sha256: '6ce0161689b3853acaa03779ec93eafe75a02f4ced659bee03f50797806fa2fa',
          filename: `/models/Stable-diffusion/${file}`,
          config: null,
        })),
      };
    }
    if (route === 'POST /sdapi/v1/interrogate') {
      const body = json(request) as { image?: string; model?: string };
      if (!['clip', 'deepdanbooru'].includes(body.model ?? 'clip'))
        return a1111Error(404, 'HTTPException', 'Model not found');
      if (!body.image) return a1111Error(500, 'HTTPException', 'Invalid encoded image');
      return { status: 200, body: { caption: this.caption } };
    }
    if (route === 'POST /sdapi/v1/img2img') {
      const run = this.lock.then(() => this.img2img(request));
      this.lock = run.catch(() => undefined);
      return run;
    }
    return { status: 404, body: { detail: 'Not Found' } };
  }

  private async img2img(request: RecordedRequest): Promise<Answer> {
    const body = json(request) as Record<string, unknown>;
    const wrong: unknown[] = [];
    for (const field of ['steps', 'seed', 'width', 'height', 'mask_blur', 'inpainting_fill', 'resize_mode']) {
      if (body[field] !== undefined && !Number.isInteger(body[field])) {
        wrong.push({ loc: ['body', field], msg: 'value is not a valid integer', type: 'type_error.integer' });
      }
    }
    for (const field of ['denoising_strength', 'cfg_scale']) {
      if (body[field] !== undefined && typeof body[field] !== 'number') {
        wrong.push({ loc: ['body', field], msg: 'value is not a valid float', type: 'type_error.float' });
      }
    }
    if (wrong.length > 0) return { status: 422, body: { detail: wrong } };
    const initImages = body.init_images as string[] | null | undefined;
    if (!initImages?.length) return a1111Error(404, 'HTTPException', 'Init image not found');
    if (body.sampler_name !== undefined && !SAMPLERS.includes(String(body.sampler_name))) {
      return a1111Error(400, 'HTTPException', 'Sampler not found');
    }
    const width = (body.width as number | undefined) ?? 512;
    const height = (body.height as number | undefined) ?? 512;
    let image: Raw;
    let mask: Raw | undefined;
    try {
      image = await decode(Buffer.from(initImages[0].replace(/^data:[^,]*,/, ''), 'base64'), 3, { width, height });
      if (typeof body.mask === 'string') mask = await decode(Buffer.from(body.mask, 'base64'), 4, { width, height });
    } catch (error) {
      return a1111Error(500, 'HTTPException', 'Invalid encoded image', String(error));
    }
    const denoise = (body.denoising_strength as number | undefined) ?? 0.75;
    let hasAlpha = false;
    for (let pixel = 0; mask && pixel < width * height && !hasAlpha; pixel += 1)
      hasAlpha = mask.data[pixel * 4 + 3] < 255;
    const invert = body.inpainting_mask_invert === 1;
    const paintAt = (pixel: number) => {
      if (!mask) return 1;
      const value = hasAlpha ? (mask.data[pixel * 4 + 3] > 128 ? 1 : 0) : mask.data[pixel * 4] / 255;
      return invert ? 1 - value : value;
    };
    const prompt = String(body.prompt ?? '');
    const png = await paint(image, paintAt, prompt, denoise);
    const seed = (body.seed as number | undefined) ?? -1;
    const info = {
      prompt,
      all_prompts: [prompt],
      negative_prompt: body.negative_prompt ?? '',
      seed: seed === -1 ? 1234567 : seed,
      all_seeds: [seed === -1 ? 1234567 : seed],
      width,
      height,
      sampler_name: body.sampler_name ?? 'Euler',
      cfg_scale: body.cfg_scale ?? 7,
      steps: body.steps ?? 50,
      denoising_strength: denoise,
      sd_model_name:
        (body.override_settings as { sd_model_checkpoint?: string } | undefined)?.sd_model_checkpoint ?? this.models[0],
    };
    return {
      status: 200,
      body: {
        images: [png.toString('base64')],
        parameters: { ...body, init_images: null, mask: null },
        info: JSON.stringify(info),
      },
      headers: { 'x-process-time': '0.42' },
    };
  }
}
