import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { builtWorkerFile } from '@app/common';
import {
  GenerativeBackend,
  type GeneratedImage,
  type OutpaintJob,
  type PortPixels,
  type SceneJob,
  type SceneResult,
  type StyleJob,
} from '@app/image-pipeline';
import type { LocalTask, LocalTaskResult } from './local.worker';
import type { SceneRenderOutput } from './scene';

/**
 * The default backend: no generative model, every job drawn deterministically on the CPU (docs/scenes.md):
 * scenes (shadows from the object's mask, studio backdrops from the prompt's words, the three template modes),
 * outpaint (texture synthesis from the image's border) and style transfer (colour and tone statistics). The
 * pixel work runs on worker threads of its own, never on the event loop; a job whose request ends (its signal)
 * is dropped from the queue or stopped.
 */
export class LocalBackend extends GenerativeBackend {
  readonly name = 'local';
  private pool?: Piscina;

  constructor(private readonly threads = Math.min(4, Math.max(1, availableParallelism()))) {
    super();
  }

  async scene(job: SceneJob): Promise<SceneResult> {
    const { width, height } = job.object.pixels;
    const background = job.background;
    const output = (await this.run(
      {
        kind: 'scene',
        input: {
          width,
          height,
          object: job.object.pixels.data,
          background:
            background.kind === 'template'
              ? {
                  kind: 'template',
                  template: background.template.pixels.data,
                  mode: background.mode,
                  view: background.view,
                  colour: background.colour,
                }
              : background,
          prompt: job.text.prompt ?? (job.text.generate ? job.text.guidelines : undefined),
          negativePrompt: job.text.negativePrompt,
          steps: job.steps,
          preference: job.preference,
          seed: job.seed,
          variant: job.variant,
        },
      },
      job.signal,
    )) as SceneRenderOutput;
    return {
      image: { pixels: { data: output.data, width, height, channels: output.channels } },
      objectTone: output.objectTone,
      details: output.details,
    };
  }

  async outpaint(job: OutpaintJob): Promise<GeneratedImage> {
    const { data, width, height } = threeChannels(job.image.pixels, 'outpaint');
    const result = await this.run(
      {
        kind: 'outpaint',
        input: {
          data,
          width,
          height,
          inner: job.inner,
          feather: job.feather,
          exclude: job.object?.pixels.data,
          seed: job.seed,
          variant: job.variant,
          preference: job.preference,
        },
      },
      job.signal,
    );
    return { pixels: { data: result.data, width, height, channels: 3 } };
  }

  async styleTransfer(job: StyleJob): Promise<GeneratedImage> {
    const { data, width, height } = threeChannels(job.image.pixels, 'style transfer');
    const reference = job.reference && threeChannels(job.reference.pixels, 'style transfer');
    const result = await this.run(
      {
        kind: 'style',
        input: {
          data,
          width,
          height,
          reference: reference && { data: reference.data, width: reference.width, height: reference.height },
          prompt: job.text.prompt,
          negativePrompt: job.text.negativePrompt,
          styleStrength: job.styleStrength,
          denoisingStrength: job.denoisingStrength,
          depthStrength: job.depthStrength,
          object: job.object?.pixels.data,
          seed: job.seed,
        },
      },
      job.signal,
    );
    return { pixels: { data: result.data, width, height, channels: 3 } as PortPixels };
  }

  /** The inputs are copied to the thread (the pipeline keeps its own for compositing); results are moved back. */
  private async run(task: LocalTask, signal: AbortSignal): Promise<LocalTaskResult> {
    signal.throwIfAborted();
    this.pool ??= new Piscina({
      filename: builtWorkerFile(__dirname, 'local.worker'),
      minThreads: 0,
      maxThreads: this.threads,
      idleTimeout: 60_000,
    });
    try {
      return (await this.pool.run(task, { signal })) as LocalTaskResult;
    } catch (error) {
      // piscina rejects an aborted task with its own AbortError: the request's reason says why
      if (signal.aborted) throw signal.reason;
      throw error;
    }
  }

  async close(): Promise<void> {
    await this.pool?.destroy();
    this.pool = undefined;
  }
}

/** The kernels read 3-channel pixels: anything else is the caller's mistake, told as such rather than drawn as noise. */
function threeChannels(pixels: PortPixels, job: string): PortPixels {
  if (pixels.channels !== 3 || pixels.data.length !== pixels.width * pixels.height * 3) {
    throw new Error(
      `local ${job}: expected 3-channel pixels, got ${pixels.channels} channels in ${pixels.data.length} bytes`,
    );
  }
  return pixels;
}
