import type { GenerativeConfig } from '@app/common';
import {
  GenerativeBackend,
  type GeneratedImage,
  type GenerationOptions,
  type OutpaintJob,
  type PortImage,
  type SceneJob,
  type SceneResult,
  type StyleJob,
} from '@app/image-pipeline';
import type { GeneratorClient, GeneratorSession } from './generator-client';
import {
  OUTPAINT_DENOISE,
  backdropWords,
  isLocalScene,
  jobSeed,
  jobSteps,
  modelName,
  negativePrompt,
  promptText,
  sceneDenoise,
  sceneBase,
  styleDenoise,
} from './job-prompts';
import { pixelPrep, portImage } from './pixel-prep';

/**
 * What an adapter sends for one job, in protocol-neutral terms. `mask` is 255 where the generator paints; each
 * adapter writes it in its protocol's polarity. Without a mask the job is an img2img of the whole image.
 */
export interface GeneratorJob {
  kind: 'scene' | 'outpaint' | 'style';
  /** 3 channels, the job's size. */
  image: PortImage;
  mask?: PortImage;
  /** Style transfer's reference: only a ComfyUI workflow with `{{reference}}` takes it. */
  reference?: PortImage;
  prompt: string;
  negativePrompt?: string;
  steps: number;
  /** 0..1: how much of the masked area (or the whole image) is repainted. */
  denoise: number;
  /** What the masked area starts from: the init image's pixels, its surroundings, or noise. */
  fill: 'original' | 'surroundings' | 'noise';
  /** Blur of the mask's edge in pixels. */
  maskBlur: number;
  seed: number;
  model?: string;
  preference: GenerationOptions['preference'];
  session: GeneratorSession;
  /** Facts the adapter adds for profiling (its prompt id, the size it asked for, what it left out). */
  details: Record<string, string | number>;
}

/**
 * What the three HTTP adapters share: which jobs stay local (shadows, locked templates), how a job becomes a
 * {@link GeneratorJob}, and the answer as `{ encoded }`. An adapter implements {@link generate} (and
 * {@link caption} where its generator can describe an image).
 */
export abstract class HttpGenerativeBackend extends GenerativeBackend {
  protected abstract readonly client: GeneratorClient;

  constructor(
    protected readonly config: GenerativeConfig,
    protected readonly local: GenerativeBackend,
  ) {
    super();
  }

  /** The generator's answer for one job: an encoded image (PNG, JPEG or WebP). */
  protected abstract generate(job: GeneratorJob): Promise<Buffer>;

  /** The generator's description of an image (for `generate: true`), or undefined where it has none. */
  protected async caption(_image: PortImage, _session: GeneratorSession): Promise<string | undefined> {
    return undefined;
  }

  async scene(job: SceneJob): Promise<SceneResult> {
    if (isLocalScene(job.background)) return this.local.scene(job);
    const session = this.client.session(job.signal);
    const [init, outside] = await Promise.all([
      pixelPrep.composite(job.object.pixels, sceneBase(job)),
      pixelPrep.invert(job.mask.pixels),
    ]);
    const image = portImage(init);
    const template = job.background.kind === 'template';
    const request = await this.request(job, session, {
      kind: 'scene',
      image,
      mask: portImage(outside),
      denoise: sceneDenoise(job.background),
      fill: template ? 'original' : 'noise',
      maskBlur: 4,
      backdrop: backdropWords(job.background),
    });
    const encoded = await this.generate(request);
    return { image: { encoded }, details: request.details };
  }

  async outpaint(job: OutpaintJob): Promise<GeneratedImage> {
    const session = this.client.session(job.signal);
    const request = await this.request(job, session, {
      kind: 'outpaint',
      image: job.image,
      mask: job.mask,
      denoise: OUTPAINT_DENOISE,
      fill: 'surroundings',
      maskBlur: Math.min(64, Math.round(Math.min(job.feather.x, job.feather.y) / 2)),
    });
    return { encoded: await this.generate(request) };
  }

  async styleTransfer(job: StyleJob): Promise<GeneratedImage> {
    const session = this.client.session(job.signal);
    const request = await this.request(job, session, {
      kind: 'style',
      image: job.image,
      reference: job.reference,
      denoise: styleDenoise(job),
      fill: 'original',
      maskBlur: 0,
    });
    return { encoded: await this.generate(request) };
  }

  private async request(
    job: GenerationOptions,
    session: GeneratorSession,
    parts: Pick<GeneratorJob, 'kind' | 'image' | 'mask' | 'reference' | 'denoise' | 'fill' | 'maskBlur'> & {
      backdrop?: string;
    },
  ): Promise<GeneratorJob> {
    const { backdrop, ...rest } = parts;
    const caption = job.text.generate ? await this.caption(parts.image, session) : undefined;
    const details: Record<string, string | number> = { generator: this.name };
    if (job.text.generate) details.prompt_source = caption === undefined ? 'subject' : 'caption';
    return {
      ...rest,
      prompt: promptText(job, { backdrop, caption }),
      negativePrompt: negativePrompt(job),
      steps: jobSteps(job),
      seed: jobSeed(job),
      model: modelName(this.config, job.model),
      preference: job.preference,
      session,
      details,
    };
  }
}
