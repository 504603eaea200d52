import { AppConfig } from '@app/common';
import { SuperResolver, type RawImage, type SuperResolutionMode } from '@app/image-pipeline';
import { ModelRunner } from '../model-runner';
import { esrganName, esrganScale, MODE_MODEL, shippedNetworks, type EsrganSize } from './esrgan-models';
import { SUPER_RESOLUTION_WORKER, type SuperResolutionJob } from './super-resolution-job';

/**
 * Super-resolution with the ESRGAN-family networks of UpscalerJS (esrgan-models.ts) on TF.js WASM, on the
 * networks' own worker thread: the network of the mode (MODE_MODEL) at the smallest scale that reaches the factor,
 * tile by tile (tiles.ts). One runner for all six networks: one thread, one queue, every file verified at start.
 */
export class EsrganSuperResolver extends SuperResolver {
  constructor(
    readonly runner: ModelRunner<SuperResolutionJob>,
    private readonly tile: number,
    /** Largest input the modes preferring medium run it on (SUPER_RESOLUTION_MEDIUM_MAX_PIXELS); larger: slim. */
    private readonly mediumMaxPixels = Infinity,
  ) {
    super();
  }

  static fromConfig(config: AppConfig): EsrganSuperResolver {
    const { networks, files } = shippedNetworks();
    const runner = new ModelRunner<SuperResolutionJob>({
      name: 'super-resolution',
      files,
      worker: SUPER_RESOLUTION_WORKER,
      session: { threads: config.vision.threads, networks },
      queueLimit: config.vision.queueLimit,
      warmUp: () => ({ job: 'warm-up' }),
    });
    const { tile, mediumMaxPixels } = config.vision.superResolution;
    return new EsrganSuperResolver(runner, tile, mediumMaxPixels);
  }

  /** The network `mode` runs on an input of `pixels`: the mode's own, but slim above the medium limit. */
  sizeFor(mode: SuperResolutionMode, pixels: number): EsrganSize {
    return pixels > this.mediumMaxPixels ? 'slim' : MODE_MODEL[mode];
  }

  network(mode: SuperResolutionMode, pixels: number): string {
    return this.sizeFor(mode, pixels);
  }

  scaleFor(_mode: SuperResolutionMode, factor: number): number {
    return esrganScale(factor);
  }

  async upscale(rgb: RawImage, mode: SuperResolutionMode, factor: number): Promise<RawImage & { scale: number }> {
    const { width, height, channels } = rgb;
    if (channels !== 3 || rgb.data.length !== width * height * 3) {
      throw new RangeError(`super-resolution needs 3-channel pixels, got ${channels}-channel ${width}x${height}`);
    }
    const scale = esrganScale(factor);
    // moved to the worker without a copy when the array owns its whole buffer; else a copy is moved
    const data =
      rgb.data.byteOffset === 0 && rgb.data.byteLength === rgb.data.buffer.byteLength ? rgb.data : rgb.data.slice();
    const job = {
      job: 'upscale' as const,
      network: esrganName(this.sizeFor(mode, width * height), scale),
      rgb: data,
      width,
      height,
      tile: this.tile,
    };
    const enlarged = await this.runner.run<Uint8Array>(job, [data.buffer as ArrayBuffer]);
    return { data: enlarged, width: width * scale, height: height * scale, channels: 3, scale };
  }
}
