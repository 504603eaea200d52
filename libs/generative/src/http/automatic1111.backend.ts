import type { GenerativeConfig } from '@app/common';
import type { GenerativeBackend, PortImage } from '@app/image-pipeline';
import { GeneratorClient, type GeneratorSession } from './generator-client';
import { type GeneratorJob, HttpGenerativeBackend } from './http-backend';
import { generatorSize } from './job-prompts';

const SIZE_LIMITS = { multiple: 8, min: 64, max: 2048 };
/** A sampler every A1111 and Forge build has. */
const SAMPLER = 'Euler a';
const CFG_SCALE = 7;
/** `inpainting_fill`: 0 fill from the surroundings, 1 the original pixels, 2 latent noise. */
const INPAINTING_FILL: Record<GeneratorJob['fill'], number> = { surroundings: 0, original: 1, noise: 2 };

/**
 * A1111's error bodies: FastAPI's 422 `{detail: [{loc, msg}]}`, its own `{error, detail, body, errors}` (500 and the
 * HTTPExceptions it raises), or `{detail: "Not Found"}` when the server runs without `--api`.
 */
function a1111ErrorMessage(status: number, body: unknown): string | undefined {
  if (body === null || typeof body !== 'object') return undefined;
  const { detail, error, errors } = body as { detail?: unknown; error?: unknown; errors?: unknown };
  if (Array.isArray(detail)) {
    return detail
      .map((item: { loc?: unknown[]; msg?: string }) => `${(item.loc ?? []).join('.')}: ${item.msg ?? ''}`)
      .join('; ');
  }
  if (status === 404 && detail === 'Not Found' && error === undefined)
    return 'Not Found (is the server started with --api?)';
  const said = [typeof detail === 'string' ? detail : '', typeof errors === 'string' ? errors : ''].filter(Boolean);
  const text = [...new Set(said)].join(': ');
  if (typeof error === 'string') return text ? `${error}: ${text}` : error;
  return text || undefined;
}

/**
 * Automatic1111 / Forge (docs/generator-protocols.md, B): `POST /sdapi/v1/img2img` with the init image and an L mask
 * (white = paint) in base64, the checkpoint as `override_settings.sd_model_checkpoint` (checked first against
 * `/sdapi/v1/sd-models`, since A1111 silently ignores an unknown one), and `generate: true` captioned by
 * `/sdapi/v1/interrogate` (CLIP). GENERATIVE_API_KEY `user:pass` is sent as HTTP Basic (--api-auth).
 */
export class Automatic1111Backend extends HttpGenerativeBackend {
  readonly name = 'automatic1111';
  protected readonly client: GeneratorClient;

  constructor(config: GenerativeConfig, local: GenerativeBackend) {
    super(config, local);
    const key = config.apiKey;
    const authorization =
      key === undefined
        ? undefined
        : key.includes(':')
          ? `Basic ${Buffer.from(key).toString('base64')}`
          : `Bearer ${key}`;
    this.client = new GeneratorClient({
      kind: 'Automatic1111',
      config,
      headers: authorization ? { authorization } : {},
      errorMessage: a1111ErrorMessage,
    });
  }

  protected override async caption(image: PortImage, session: GeneratorSession): Promise<string | undefined> {
    const answer = await session.request({
      method: 'POST',
      path: '/sdapi/v1/interrogate',
      json: { image: (await image.png()).toString('base64'), model: 'clip' },
      idempotent: true,
    });
    const { caption } = answer.json<{ caption?: string }>();
    return caption?.trim() || undefined;
  }

  protected async generate(job: GeneratorJob): Promise<Buffer> {
    const { session, details } = job;
    if (job.model !== undefined) await this.checkModel(session, job.model);
    if (job.reference) details.reference = 'not sent: Automatic1111 img2img takes no reference image';
    const size = generatorSize(job.image.pixels.width, job.image.pixels.height, SIZE_LIMITS);
    details.size = `${size.width}x${size.height}`;
    const body = {
      init_images: [(await job.image.png()).toString('base64')],
      ...(job.mask && {
        mask: (await job.mask.png()).toString('base64'),
        inpainting_fill: INPAINTING_FILL[job.fill],
        inpaint_full_res: false,
        inpainting_mask_invert: 0,
        mask_blur: job.maskBlur,
      }),
      resize_mode: 0,
      denoising_strength: job.denoise,
      prompt: job.prompt,
      negative_prompt: job.negativePrompt ?? '',
      steps: job.steps,
      seed: job.seed,
      width: size.width,
      height: size.height,
      cfg_scale: CFG_SCALE,
      sampler_name: SAMPLER,
      batch_size: 1,
      n_iter: 1,
      send_images: true,
      save_images: false,
      include_init_images: false,
      ...(job.model !== undefined && {
        override_settings: { sd_model_checkpoint: job.model },
        override_settings_restore_afterwards: true,
      }),
    };
    // One img2img may run twice without harm (it only costs time): a lost answer is worth another attempt.
    const answer = await session.request({ method: 'POST', path: '/sdapi/v1/img2img', json: body, idempotent: true });
    const { images, info } = answer.json<{ images?: string[]; info?: string }>();
    if (!images?.[0]) throw this.client.failure('answered without an image');
    const seed = readSeed(info);
    if (seed !== undefined) details.seed = seed;
    return Buffer.from(images[0].replace(/^data:[^,]*,/, ''), 'base64');
  }

  /** A1111 runs an unknown checkpoint's job on whatever model is loaded: refuse it here, clearly, instead. */
  private async checkModel(session: GeneratorSession, model: string): Promise<void> {
    const answer = await session.request({ method: 'GET', path: '/sdapi/v1/sd-models' });
    const models = answer.json<SdModel[]>();
    if (!models.some((item) => modelAliases(item).includes(model))) {
      const names = models
        .slice(0, 10)
        .map((item) => item.model_name ?? item.title)
        .join(', ');
      throw this.client.failure(`has no model "${model}"`, false, `it has: ${names || 'none'}`);
    }
  }
}

interface SdModel {
  title?: string;
  model_name?: string;
  hash?: string;
  filename?: string;
}

/**
 * The names A1111 resolves a checkpoint by (its `checkpoint_aliases`): the title (`name.safetensors [hash]`), the
 * model name (no extension), the file's name and its path under models/Stable-diffusion, and the short hash.
 */
function modelAliases(item: SdModel): string[] {
  const path = item.filename?.replace(/\\/g, '/');
  const file = path?.split('/').pop();
  const relative = path?.split('/Stable-diffusion/').pop();
  return [item.title, item.model_name, file, relative, item.hash].filter((name): name is string => Boolean(name));
}

/** The seed the generator used, from `info` (a JSON string inside the JSON answer). */
function readSeed(info: string | undefined): number | undefined {
  try {
    const seed = (JSON.parse(info ?? '') as { seed?: unknown }).seed;
    return typeof seed === 'number' ? seed : undefined;
  } catch {
    return undefined;
  }
}
