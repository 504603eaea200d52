import type { GenerativeConfig } from '@app/common';
import type { GenerationPreference, GenerativeBackend } from '@app/image-pipeline';
import { GeneratorClient } from './generator-client';
import { type GeneratorJob, HttpGenerativeBackend } from './http-backend';
import { generatorSize } from './job-prompts';
import { pixelPrep } from './pixel-prep';

/** The sizes GPT image models take (besides `auto`). */
const GPT_IMAGE_SIZES = [
  [1024, 1024],
  [1536, 1024],
  [1024, 1536],
] as const;
const DALL_E_2_SIZES = [256, 512, 1024];
/** gpt-image-2 takes any WxH in multiples of 16 (aspect 1:3..3:1); this keeps it to a sensible range. */
const FREE_SIZE_LIMITS = { multiple: 16, min: 256, max: 2048 };
const QUALITY: Record<GenerationPreference, string> = { fast: 'low', optimal: 'medium', best: 'high' };

/**
 * The `size` to ask for: the supported size nearest to the job's (in aspect for the fixed sizes of GPT image models,
 * in area for dall-e-2's squares); the pipeline fits the answer to the job's size.
 */
export function openAiSize(model: string | undefined, width: number, height: number): string {
  if (model === 'dall-e-2') {
    const side = DALL_E_2_SIZES.reduce((best, size) =>
      Math.abs(Math.log((size * size) / (width * height))) < Math.abs(Math.log((best * best) / (width * height)))
        ? size
        : best,
    );
    return `${side}x${side}`;
  }
  if (model === 'gpt-image-2') {
    const ratio = Math.min(3, Math.max(1 / 3, width / height));
    const clamped = ratio === width / height ? { width, height } : { width: Math.round(height * ratio), height };
    const size = generatorSize(clamped.width, clamped.height, FREE_SIZE_LIMITS);
    return `${size.width}x${size.height}`;
  }
  const aspect = Math.log(width / height);
  const [w, h] = GPT_IMAGE_SIZES.reduce((best, size) =>
    Math.abs(Math.log(size[0] / size[1]) - aspect) < Math.abs(Math.log(best[0] / best[1]) - aspect) ? size : best,
  );
  return `${w}x${h}`;
}

/** `{error: {message, type, param, code}}`. */
function openAiErrorMessage(_status: number, body: unknown): string | undefined {
  const error = (body as { error?: { message?: string; type?: string; param?: string; code?: string } } | null)?.error;
  if (!error || typeof error !== 'object') return undefined;
  const about = [error.type, error.code, error.param && `param ${error.param}`].filter(Boolean).join(', ');
  return about ? `${error.message ?? ''} (${about})` : error.message;
}

/** A 429 for a spent quota does not pass by waiting. */
function isFinal(status: number, body: unknown): boolean {
  return status === 429 && (body as { error?: { code?: string } } | null)?.error?.code === 'insufficient_quota';
}

/**
 * An OpenAI-compatible images API (docs/generator-protocols.md, C): `POST {base}/images/edits` (base
 * GENERATIVE_URL, `/v1` added when it does not end in it), multipart with the image, its mask (the image with
 * alpha 0 where to paint), the prompt (the negative folded in as "Avoid: ..."), n=1, the nearest supported size,
 * `quality` by preference for GPT image models and `response_format=b64_json` for dall-e-2; Bearer
 * GENERATIVE_API_KEY. The API has no seed, steps or strength: these are not sent. A style transfer is an edit of
 * the whole image (no mask) and its reference is not sent.
 */
export class OpenAiBackend extends HttpGenerativeBackend {
  readonly name = 'openai';
  protected readonly client: GeneratorClient;
  private readonly editsPath: string;

  constructor(config: GenerativeConfig, local: GenerativeBackend) {
    super(config, local);
    this.client = new GeneratorClient({
      kind: 'OpenAI-compatible API',
      config,
      headers: config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {},
      errorMessage: openAiErrorMessage,
      isFinal,
    });
    this.editsPath = /\/v1\/*$/.test(new URL(config.url ?? 'http://invalid').pathname)
      ? '/images/edits'
      : '/v1/images/edits';
  }

  protected async generate(job: GeneratorJob): Promise<Buffer> {
    const { session, details } = job;
    const { width, height } = job.image.pixels;
    const size = openAiSize(job.model, width, height);
    details.size = size;
    details.seed = 'not supported';
    if (job.reference) details.reference = 'not sent: the images API edit takes no reference image';
    const form = new FormData();
    if (job.model !== undefined) form.append('model', job.model);
    form.append('image', new Blob([await job.image.png()], { type: 'image/png' }), 'image.png');
    if (job.mask) {
      const mask = await pixelPrep.alphaMaskPng(job.image.pixels, job.mask.pixels);
      form.append('mask', new Blob([mask], { type: 'image/png' }), 'mask.png');
    }
    const avoid = job.negativePrompt ? `. Avoid: ${job.negativePrompt}` : '';
    form.append('prompt', `${job.prompt}${avoid}`);
    form.append('n', '1');
    form.append('size', size);
    if (job.model === 'dall-e-2') form.append('response_format', 'b64_json');
    else if (job.model === undefined || /^(gpt|chatgpt)-image/.test(job.model))
      form.append('quality', QUALITY[job.preference]);
    const answer = await session.request({ method: 'POST', path: this.editsPath, form });
    const { data } = answer.json<{ data?: { b64_json?: string; url?: string }[] }>();
    const first = data?.[0];
    if (first?.b64_json) return Buffer.from(first.b64_json, 'base64');
    if (first?.url) return (await session.request({ method: 'GET', path: first.url })).body;
    throw this.client.failure('answered without an image (data[0] has no b64_json or url)');
  }
}
