import { ConsoleLogger, Logger } from '@nestjs/common';
import type { GenerativeConfig } from '@app/common';
import {
  GenerativeBackend,
  type GeneratedImage,
  type OutpaintJob,
  type PortImage,
  type PortPixels,
  type SceneBackground,
  type SceneJob,
  type SceneResult,
  type StyleJob,
} from '@app/image-pipeline';
import sharp from 'sharp';

/** Jobs for the HTTP adapters' contract specs: small images built with sharp, as the pipeline would hand them. */

export function generativeConfig(overrides: Partial<GenerativeConfig> = {}): GenerativeConfig {
  return {
    backend: 'local',
    models: {},
    timeoutMs: 10_000,
    retries: 2,
    pollIntervalMs: 10,
    maxResponseBytes: 64 * 1024 * 1024,
    sceneConcurrency: 1,
    sceneQueueLimit: 4,
    sceneTimeoutMs: 60_000,
    ...overrides,
  };
}

export function portImage(pixels: PortPixels): PortImage {
  return {
    pixels,
    png: () =>
      sharp(Buffer.from(pixels.data), {
        raw: { width: pixels.width, height: pixels.height, channels: pixels.channels },
      })
        .png()
        .toBuffer(),
  };
}

export function filled(width: number, height: number, colour: number[]): PortPixels {
  const channels = colour.length as 1 | 3 | 4;
  const data = new Uint8Array(width * height * channels);
  for (let index = 0; index < data.length; index += channels) data.set(colour, index);
  return { data, width, height, channels };
}

/** The object of every scene: a blue box in the middle third of the canvas. */
export const OBJECT_RGB = [30, 60, 200];
export const WIDTH = 96;
export const HEIGHT = 64;

export function insideObject(x: number, y: number): boolean {
  return x >= WIDTH / 3 && x < (2 * WIDTH) / 3 && y >= HEIGHT / 3 && y < (2 * HEIGHT) / 3;
}

export function sceneJob(
  background: SceneBackground = { kind: 'prompt' },
  overrides: Partial<SceneJob> = {},
): SceneJob {
  const object = filled(WIDTH, HEIGHT, [0, 0, 0, 0]);
  const mask = filled(WIDTH, HEIGHT, [0]);
  for (let y = 0; y < HEIGHT; y += 1) {
    for (let x = 0; x < WIDTH; x += 1) {
      if (!insideObject(x, y)) continue;
      object.data.set([...OBJECT_RGB, 255], (y * WIDTH + x) * 4);
      mask.data[y * WIDTH + x] = 255;
    }
  }
  return {
    object: portImage(object),
    mask: portImage(mask),
    background,
    model: 'v1',
    preference: 'fast',
    seed: 1000,
    variant: 2,
    text: { prompt: 'a sunny beach', negativePrompt: 'people', generate: false, subject: 'a blue box' },
    signal: new AbortController().signal,
    ...overrides,
  };
}

export function templateBackground(mode: 'transform' | 'adjust' | 'lock', rgb = [200, 180, 40]): SceneBackground {
  return { kind: 'template', template: portImage(filled(WIDTH, HEIGHT, rgb)), mode, view: 'front' };
}

export function outpaintJob(overrides: Partial<OutpaintJob> = {}): OutpaintJob {
  const inner = { left: 16, top: 16, width: 64, height: 32 };
  const image = filled(WIDTH, HEIGHT, [0, 0, 0]);
  const mask = filled(WIDTH, HEIGHT, [255]);
  for (let y = inner.top; y < inner.top + inner.height; y += 1) {
    for (let x = inner.left; x < inner.left + inner.width; x += 1) {
      image.data.set([90, 140, 60], (y * WIDTH + x) * 3);
      mask.data[y * WIDTH + x] = 0;
    }
  }
  return {
    image: portImage(image),
    mask: portImage(mask),
    inner,
    feather: { x: 8, y: 8 },
    model: 'v1',
    preference: 'optimal',
    seed: 7,
    variant: 0,
    text: { prompt: 'a meadow', generate: false, subject: 'a field' },
    signal: new AbortController().signal,
    ...overrides,
  };
}

export function styleJob(overrides: Partial<StyleJob> = {}): StyleJob {
  return {
    image: portImage(filled(WIDTH, HEIGHT, [100, 100, 100])),
    reference: portImage(filled(32, 32, [250, 10, 10])),
    styleStrength: 0.5,
    denoisingStrength: 0.5,
    depthStrength: 0.5,
    model: 'v1',
    preference: 'best',
    seed: 3,
    variant: 0,
    text: { prompt: 'oil painting', generate: false, subject: 'a grey card' },
    signal: new AbortController().signal,
    ...overrides,
  };
}

/** The local backend the adapters delegate to: records what it was given, answers a flat grey. */
export class RecordingLocal extends GenerativeBackend {
  readonly name = 'local';
  readonly scenes: SceneJob[] = [];

  async scene(job: SceneJob): Promise<SceneResult> {
    this.scenes.push(job);
    return {
      image: { pixels: filled(job.mask.pixels.width, job.mask.pixels.height, [1, 2, 3]) },
      details: { by: 'local' },
    };
  }

  async outpaint(): Promise<GeneratedImage> {
    throw new Error('the local backend should not outpaint here');
  }

  async styleTransfer(): Promise<GeneratedImage> {
    throw new Error('the local backend should not style here');
  }
}

/** An answer's pixels, 3 channels, at the answer's own size. */
export async function pixelsOf(image: GeneratedImage): Promise<{ data: Buffer; width: number; height: number }> {
  if (!('encoded' in image)) throw new Error('expected an encoded image');
  const { data, info } = await sharp(image.encoded).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

export function at(image: { data: Uint8Array; width: number }, x: number, y: number, channels = 3): number[] {
  const index = (y * image.width + x) * channels;
  return [...image.data.subarray(index, index + 3)];
}

/** The promise's rejection (fails the test if it resolves). */
export async function rejection(promise: Promise<unknown>): Promise<Error & { codeName?: string; status?: number }> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}

/**
 * The warnings the service's loggers write while `work` runs (Nest's logger, set for the while): what a generator
 * said goes there, never into an error a client sees.
 */
export async function warningsDuring<T>(work: () => Promise<T>): Promise<{ result: T; warnings: string }> {
  const lines: string[] = [];
  const keep = (message: unknown) => void lines.push(String(message));
  Logger.overrideLogger({
    log: () => undefined,
    error: keep,
    warn: keep,
    debug: () => undefined,
    verbose: () => undefined,
  });
  try {
    return { result: await work(), warnings: lines.join('\n') };
  } finally {
    Logger.overrideLogger(new ConsoleLogger());
  }
}
